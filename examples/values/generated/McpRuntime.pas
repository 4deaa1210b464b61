{ McpRuntime: the fixed support code of the stubs delphi-mcp generates (ABI version 3, see
  docs/abi.md of delphi-mcp). Written by `delphi-mcp gen`; do not edit.
  Identifiers starting with __Mcp are reserved for generated code. }
unit McpRuntime;

{$IFDEF FPC}
  {$MODE DELPHIUNICODE}
  {$IF defined(LINUX) and defined(CPUX86_64)}
    {$DEFINE MCP_SIGNALS}
  {$IFEND}
{$ENDIF}
{$R-}
{$Q-}

interface

uses
  {$IFDEF MSWINDOWS}{$IFDEF FPC}Windows,{$ELSE}Winapi.Windows,{$ENDIF}{$ENDIF}
  {$IFDEF FPC}SysUtils, Math{$ELSE}System.SysUtils, System.Math{$ENDIF};

const
  __McpAbi = 3;
  __McpOk = 0;
  __McpRaised = 1;
  __McpBadArgument = 2;
  __McpBadCall = 3;
  __McpToolError = 4;

  __McpKindAbsent = 0;
  __McpKindBool = 1;
  __McpKindInt = 2;
  __McpKindUInt = 3;
  __McpKindDouble = 4;
  __McpKindString = 5;
  __McpKindRecord = 6;
  __McpKindArray = 7;
  __McpKindBytes = 8;
  __McpKindContext = 9;

type
  { One tagged value of the ABI: 32 bytes on 64-bit targets, 24 on 32-bit. }
  __TMcpAbiValue = record
    Kind: Int32;
    Flags: Int32;
    Bits: UInt64;
    Ptr: Pointer;
    Len: NativeInt;
  end;
  __PMcpAbiValue = ^__TMcpAbiValue;

  { A result block being written (ABI 2): slots in pre-order, grown as needed. }
  __TMcpWriter = record
    Buf: __PMcpAbiValue;
    Count, Cap: NativeInt;
  end;

  { What a stub saves on entry and restores on exit. }
  __TMcpCallState = record
    MXCSR: UInt32;
    CW: Word;
  end;

function __McpAbiVersion: Int32; cdecl;
function __McpInit(Error: __PMcpAbiValue): Int32; cdecl;
procedure __McpFree(P: Pointer); cdecl;

procedure __McpEnter(var State: __TMcpCallState);
procedure __McpLeave(var State: __TMcpCallState);

function __McpArg(Args: __PMcpAbiValue; Index: Integer): __PMcpAbiValue;
function __McpIsAbsent(Args: __PMcpAbiValue; Index: Integer): Boolean;
function __McpGetContext(Args: __PMcpAbiValue; Index: Integer; out V: Pointer;
  Res: __PMcpAbiValue): Int32;
function __McpCheckCount(Count, Expected: Int32; Res: __PMcpAbiValue): Int32;

function __McpGetInt(Args: __PMcpAbiValue; Index: Integer; const Name: string;
  Min, Max: Int64; out V: Int64; Res: __PMcpAbiValue): Int32;
function __McpGetUInt(Args: __PMcpAbiValue; Index: Integer; const Name: string;
  Max: UInt64; out V: UInt64; Res: __PMcpAbiValue): Int32;
function __McpGetDouble(Args: __PMcpAbiValue; Index: Integer; const Name: string;
  out V: Double; Res: __PMcpAbiValue): Int32;
function __McpGetSingle(Args: __PMcpAbiValue; Index: Integer; const Name: string;
  out V: Double; Res: __PMcpAbiValue): Int32;
function __McpGetCurrency(Args: __PMcpAbiValue; Index: Integer; const Name: string;
  out V: Double; Res: __PMcpAbiValue): Int32;
function __McpGetComp(Args: __PMcpAbiValue; Index: Integer; const Name: string;
  out V: Int64; Res: __PMcpAbiValue): Int32;
function __McpGetBool(Args: __PMcpAbiValue; Index: Integer; const Name: string;
  out V: Boolean; Res: __PMcpAbiValue): Int32;
function __McpGetStr(Args: __PMcpAbiValue; Index: Integer; const Name: string;
  out V: UnicodeString; Res: __PMcpAbiValue): Int32;
function __McpGetUtf8(Args: __PMcpAbiValue; Index: Integer; const Name: string;
  out V: RawByteString; Res: __PMcpAbiValue): Int32;
function __McpGetAnsi(Args: __PMcpAbiValue; Index: Integer; const Name: string;
  CodePage: Word; MaxBytes: Integer; out V: RawByteString; Res: __PMcpAbiValue): Int32;
function __McpGetWideChar(Args: __PMcpAbiValue; Index: Integer; const Name: string;
  out V: WideChar; Res: __PMcpAbiValue): Int32;
function __McpGetAnsiChar(Args: __PMcpAbiValue; Index: Integer; const Name: string;
  out V: AnsiChar; Res: __PMcpAbiValue): Int32;

function __McpSetNone(Res: __PMcpAbiValue): Int32;
function __McpSetInt(Res: __PMcpAbiValue; V: Int64): Int32;
function __McpSetUInt(Res: __PMcpAbiValue; V: UInt64): Int32;
function __McpSetDouble(Res: __PMcpAbiValue; V: Double): Int32;
function __McpSetBool(Res: __PMcpAbiValue; V: Boolean): Int32;
function __McpSetStr(Res: __PMcpAbiValue; const V: UnicodeString): Int32;
function __McpSetRaw(Res: __PMcpAbiValue; const V: RawByteString; DeclaredCodePage: Word): Int32;
function __McpSetShort(Res: __PMcpAbiValue; const V: ShortString): Int32;
function __McpSetWideChar(Res: __PMcpAbiValue; V: WideChar): Int32;
function __McpSetAnsiChar(Res: __PMcpAbiValue; V: AnsiChar): Int32;

function __McpFail(Res: __PMcpAbiValue): Int32;
function __McpModuleNotOpen(Res: __PMcpAbiValue; const Resolver: string): Int32;

{ ABI 2: composite values. }
function __McpBlock(Args: __PMcpAbiValue; Index: Integer; out Block: __PMcpAbiValue;
  Res: __PMcpAbiValue): Int32;
function __McpGetHead(Block: __PMcpAbiValue; Cursor: Integer; const Name: string;
  Kind: Int32; Expected: Int64; out Count: Integer; Res: __PMcpAbiValue): Int32;
function __McpGetBytes(Args: __PMcpAbiValue; Index: Integer; const Name: string;
  out V: TBytes; Res: __PMcpAbiValue): Int32;
function __McpSetByteArray(Res: __PMcpAbiValue; const V: TBytes): Int32;
procedure __McpWInit(var W: __TMcpWriter);
procedure __McpWAdd(var W: __TMcpWriter; const V: __TMcpAbiValue);
function __McpWOpen(var W: __TMcpWriter; Kind: Int32; Count: Int64): NativeInt;
procedure __McpWClose(var W: __TMcpWriter; Header: NativeInt);
function __McpWFinish(var W: __TMcpWriter; Res: __PMcpAbiValue): Int32;
procedure __McpWFree(var W: __TMcpWriter);

implementation

type
  __TMcpBytes = array[0..MaxInt div 2] of Byte;
  __PMcpBytes = ^__TMcpBytes;

{$IFDEF MCP_SIGNALS}
{ Signal handling (Free Pascal, Linux x86_64). A library gets no signal handlers from the FPC
  RTL, so a nil dereference or an integer division by zero would kill the host. The handler
  below turns such a fault inside a stub call into a Pascal exception by making the faulting
  thread "call" __McpRaiseFault; faults outside stub calls go to the previous handler.
  sigaction comes from libc (not FpSigAction, which drops SA_RESTORER with SA_ONSTACK). }
const
  __MCP_SIGFPE = 8;
  __MCP_SIGSEGV = 11;
  __MCP_SIGBUS = 7;
  __MCP_SA_SIGINFO = $00000004;
  __MCP_SA_ONSTACK = $08000000;
  __MCP_SA_NODEFER = $40000000;

type
  __TMcpSigAction = record
    Handler: Pointer;
    Mask: array[0..15] of UInt64;
    Flags: Int32;
    Pad: Int32;
    Restorer: Pointer;
  end;
  __TMcpSigInfoHandler = procedure(Sig: Int32; Info, Ctx: Pointer); cdecl;
  __TMcpSigHandler = procedure(Sig: Int32); cdecl;

function __mcp_sigaction(Sig: Int32; Act, OldAct: Pointer): Int32; cdecl;
  external 'c' name 'sigaction';

var
  __McpOldSegv, __McpOldFpe, __McpOldBus: __TMcpSigAction;
  __McpSignalsInstalled: Boolean = False;
{$ENDIF}

threadvar
  __McpDepth: Integer;
  {$IFDEF MSWINDOWS}
  __McpStackReserved: Boolean;
  __McpStackOverflowed: Boolean;
  {$ENDIF}

{$IFDEF MSWINDOWS}
{ Stack overflow under Windows structured exception handling. The system raises
  EXCEPTION_STACK_OVERFLOW when the stack's guard page is reached with no more than the
  thread's guaranteed stack below it, and the exception is dispatched and turned into
  EStackOverflow on that remainder: the default (8 KiB on x64) is too little for that, so each
  calling thread reserves more. Once used, the guard page is gone and the next overflow would end
  the process, so after an overflow it is set again, above the reserve, as the C runtime's
  _resetstkoflw does; it is set there on a thread's first call too where the stack is already
  committed (Wine commits thread stacks whole, with a guard page only at their very end). }
const
  __McpStackGuarantee = 64 * 1024;

function __mcp_SetThreadStackGuarantee(var Size: ULONG): BOOL; stdcall;
  external 'kernel32.dll' name 'SetThreadStackGuarantee';

procedure __McpSetStackGuard;
var
  Info: TMemoryBasicInformation;
  System_: TSystemInfo;
  PageSize, Page: NativeUInt;
  OldProtect: DWORD;
begin
  __McpStackOverflowed := False;
  GetSystemInfo(System_);
  PageSize := System_.dwPageSize;
  if VirtualQuery(@Info, Info, SizeOf(Info)) = 0 then
    Exit;
  Page := NativeUInt(Info.AllocationBase) + __McpStackGuarantee + 2 * PageSize;
  if (Page >= NativeUInt(@Info)) or (VirtualQuery(Pointer(Page), Info, SizeOf(Info)) = 0) then
    Exit;
  if (Info.State = MEM_COMMIT) and ((Info.Protect and PAGE_GUARD) = 0) then
    VirtualProtect(Pointer(Page), PageSize, PAGE_READWRITE or PAGE_GUARD, OldProtect);
end;

procedure __McpReserveStack;
var
  Size: ULONG;
begin
  if __McpStackReserved then
    Exit;
  Size := __McpStackGuarantee;
  __mcp_SetThreadStackGuarantee(Size);
  __McpSetStackGuard;
  __McpStackReserved := True;
end;
{$ENDIF}

{$IFDEF MCP_SIGNALS}
{ Entered instead of the faulting instruction, as if called from it. }
procedure __McpRaiseFault(Sig, Code: NativeInt; Addr: Pointer); cdecl;
begin
  SetMXCSR(GetMXCSR and not UInt32($3F));
  if Sig = __MCP_SIGFPE then
    case Code of
      1: raise EDivByZero.Create('Division by zero');
      2: raise EIntOverflow.Create('Integer overflow');
      3: raise EZeroDivide.Create('Floating point division by zero');
      4: raise EOverflow.Create('Floating point overflow');
      5: raise EUnderflow.Create('Floating point underflow');
      6: raise EInvalidOp.Create('Floating point inexact result');
      7: raise EInvalidOp.Create('Invalid floating point operation');
    else
      raise EMathError.Create('Arithmetic fault');
    end;
  raise EAccessViolation.CreateFmt('Access violation at address %p', [Addr]);
end;

procedure __McpChain(Sig: Int32; Info, Ctx: Pointer; const Old: __TMcpSigAction);
var
  Dfl: __TMcpSigAction;
begin
  if (Old.Flags and __MCP_SA_SIGINFO) <> 0 then
    __TMcpSigInfoHandler(Old.Handler)(Sig, Info, Ctx)
  else if NativeUInt(Old.Handler) = 0 then
  begin
    { SIG_DFL: restore it; returning re-runs the faulting instruction, which then gets the
      default action, as if this handler had never been installed. }
    FillChar(Dfl, SizeOf(Dfl), 0);
    __mcp_sigaction(Sig, @Dfl, nil);
  end
  else if NativeUInt(Old.Handler) <> 1 then
    __TMcpSigHandler(Old.Handler)(Sig);
end;

procedure __McpSignal(Sig: Int32; Info, Ctx: Pointer); cdecl;
const
  GregsOffset = 40;  { ucontext_t.uc_mcontext.gregs }
  RegRdi = 8;
  RegRsi = 9;
  RegRdx = 12;
  RegRsp = 15;
  RegRip = 16;
  FpregsIndex = 23;  { uc_mcontext.fpregs, after the 23 gregs }
  MxcsrOffset = 24;  { in struct _libc_fpstate }
var
  Gregs: PUInt64;
  Sp: UInt64;
  Fp: PByte;
begin
  if __McpDepth <= 0 then
  begin
    case Sig of
      __MCP_SIGSEGV: __McpChain(Sig, Info, Ctx, __McpOldSegv);
      __MCP_SIGBUS: __McpChain(Sig, Info, Ctx, __McpOldBus);
    else
      __McpChain(Sig, Info, Ctx, __McpOldFpe);
    end;
    Exit;
  end;
  Gregs := PUInt64(PByte(Ctx) + GregsOffset);
  { A fake call frame below the red zone, 16-byte aligned before the return address. }
  Sp := ((Gregs[RegRsp] - 256) and not UInt64(15)) - 8;
  PUInt64(Sp)^ := Gregs[RegRip];
  Gregs[RegRsp] := Sp;
  Gregs[RegRdi] := UInt64(Sig);
  Gregs[RegRsi] := UInt64(PInt32(PByte(Info) + 8)^);
  Gregs[RegRdx] := PUInt64(PByte(Info) + 16)^;
  Gregs[RegRip] := UInt64(@__McpRaiseFault);
  Fp := PByte(Gregs[FpregsIndex]);
  if Fp <> nil then
    PUInt32(Fp + MxcsrOffset)^ := PUInt32(Fp + MxcsrOffset)^ and not UInt32($3F);
end;

procedure __McpInstallSignals;
var
  Act: __TMcpSigAction;
begin
  if __McpSignalsInstalled then
    Exit;
  FillChar(Act, SizeOf(Act), 0);
  Act.Handler := @__McpSignal;
  { SA_NODEFER: the handler never returns into the fault, so the signal must stay deliverable
    for the next fault on this thread. }
  Act.Flags := __MCP_SA_SIGINFO or __MCP_SA_ONSTACK or __MCP_SA_NODEFER;
  __mcp_sigaction(__MCP_SIGSEGV, @Act, @__McpOldSegv);
  __mcp_sigaction(__MCP_SIGFPE, @Act, @__McpOldFpe);
  __mcp_sigaction(__MCP_SIGBUS, @Act, @__McpOldBus);
  __McpSignalsInstalled := True;
end;
{$ENDIF}

procedure __McpSetup;
begin
  IsMultiThread := True;
  { AnsiString is in the system's ANSI code page on Windows, as under Delphi; elsewhere Free
    Pascal's default would follow the host's locale, so the stubs fix it to UTF-8. }
  {$IF defined(FPC) and not defined(MSWINDOWS)}
  SetMultiByteConversionCodePage(CP_UTF8);
  {$IFEND}
end;

function __McpAbiVersion: Int32; cdecl;
begin
  Result := __McpAbi;
end;

procedure __McpSetBytes(Res: __PMcpAbiValue; P: Pointer; Len: NativeInt);
var
  Buffer: Pointer;
begin
  { Never a nil pointer, even for the empty string. }
  GetMem(Buffer, Len + 1);
  if Len > 0 then
    Move(P^, Buffer^, Len);
  __PMcpBytes(Buffer)^[Len] := 0;
  Res^.Kind := __McpKindString;
  Res^.Flags := 0;
  Res^.Bits := 0;
  Res^.Ptr := Buffer;
  Res^.Len := Len;
end;

{ UTF-16 to UTF-8 (lone surrogates become U+FFFD). }
function __McpUtf8Of(const S: UnicodeString): RawByteString;
var
  I, N, Len: Integer;
  C, C2: Cardinal;
  Out_: RawByteString;

  procedure Put(B: Cardinal);
  begin
    Inc(N);
    Out_[N] := AnsiChar(B);
  end;

begin
  Len := Length(S);
  SetLength(Out_, Len * 3);
  N := 0;
  I := 1;
  while I <= Len do
  begin
    C := Ord(S[I]);
    Inc(I);
    if (C >= $D800) and (C <= $DBFF) then
    begin
      if I <= Len then
        C2 := Ord(S[I])
      else
        C2 := 0;
      if (C2 >= $DC00) and (C2 <= $DFFF) then
      begin
        Inc(I);
        C := $10000 + ((C - $D800) shl 10) + (C2 - $DC00);
      end
      else
        C := $FFFD;
    end
    else if (C >= $DC00) and (C <= $DFFF) then
      C := $FFFD;
    if C < $80 then
      Put(C)
    else if C < $800 then
    begin
      Put($C0 or (C shr 6));
      Put($80 or (C and $3F));
    end
    else if C < $10000 then
    begin
      Put($E0 or (C shr 12));
      Put($80 or ((C shr 6) and $3F));
      Put($80 or (C and $3F));
    end
    else
    begin
      Put($F0 or (C shr 18));
      Put($80 or ((C shr 12) and $3F));
      Put($80 or ((C shr 6) and $3F));
      Put($80 or (C and $3F));
    end;
  end;
  SetLength(Out_, N);
  Result := Out_;
end;

{ UTF-8 to UTF-16. Strict: returns False on malformed input unless Lenient, which replaces it
  with U+FFFD. }
function __McpDecodeUtf8(P: Pointer; Len: NativeInt; Lenient: Boolean;
  out S: UnicodeString): Boolean;
var
  A: __PMcpBytes;
  I, N, Need, K: NativeInt;
  C, B, MinC: Cardinal;
  Bad: Boolean;
begin
  Result := False;
  A := __PMcpBytes(P);
  SetLength(S, Len);
  N := 0;
  I := 0;
  while I < Len do
  begin
    B := A^[I];
    Bad := False;
    Need := 0;
    MinC := 0;
    if B < $80 then
      C := B
    else if (B and $E0) = $C0 then
    begin
      Need := 1;
      C := B and $1F;
      MinC := $80;
    end
    else if (B and $F0) = $E0 then
    begin
      Need := 2;
      C := B and $0F;
      MinC := $800;
    end
    else if (B and $F8) = $F0 then
    begin
      Need := 3;
      C := B and $07;
      MinC := $10000;
    end
    else
    begin
      C := 0;
      Bad := True;
    end;
    if not Bad then
    begin
      if I + Need > Len - 1 then
        Bad := True;
      K := 1;
      while (not Bad) and (K <= Need) do
      begin
        B := A^[I + K];
        if (B and $C0) <> $80 then
          Bad := True
        else
          C := (C shl 6) or (B and $3F);
        Inc(K);
      end;
      if (not Bad) and (Need > 0) and ((C < MinC) or (C > $10FFFF) or
        ((C >= $D800) and (C <= $DFFF))) then
        Bad := True;
    end;
    if Bad then
    begin
      if not Lenient then
        Exit;
      C := $FFFD;
      Need := 0;
    end;
    Inc(I, Need + 1);
    if C >= $10000 then
    begin
      Dec(C, $10000);
      Inc(N);
      S[N] := WideChar($D800 + (C shr 10));
      Inc(N);
      S[N] := WideChar($DC00 + (C and $3FF));
    end
    else
    begin
      Inc(N);
      S[N] := WideChar(C);
    end;
  end;
  SetLength(S, N);
  Result := True;
end;

const
  { Windows-1252 0x80..0x9F; 0 where the code page has no character. }
  __Mcp1252High: array[$80..$9F] of Word = (
    $20AC, 0, $201A, $0192, $201E, $2026, $2020, $2021,
    $02C6, $2030, $0160, $2039, $0152, 0, $017D, 0,
    0, $2018, $2019, $201C, $201D, $2022, $2013, $2014,
    $02DC, $2122, $0161, $203A, $0153, 0, $017E, $0178);

function __McpEffectiveCodePage(CodePage: Word): Word;
begin
  if (CodePage = 0) or (CodePage = $FFFF) then
    Result := DefaultSystemCodePage
  else
    Result := CodePage;
end;

{ UTF-16 to bytes of a code page; False when a character is not representable. }
function __McpToCodePage(const U: UnicodeString; CodePage: Word; out R: RawByteString): Boolean;
var
  I, B: Integer;
  C: Word;
  Utf8, Back: RawByteString;
begin
  Result := False;
  CodePage := __McpEffectiveCodePage(CodePage);
  case CodePage of
    1252, 28591, 20127:
      begin
        SetLength(R, Length(U));
        for I := 1 to Length(U) do
        begin
          C := Ord(U[I]);
          if C < $80 then
            B := C
          else if (CodePage = 20127) then
            Exit
          else if (C <= $FF) and ((CodePage = 28591) or (C >= $A0)) then
            B := C
          else if CodePage = 1252 then
          begin
            B := $80;
            while (B <= $9F) and (__Mcp1252High[B] <> C) do
              Inc(B);
            if (B > $9F) or (C = 0) then
              Exit;
          end
          else
            Exit;
          R[I] := AnsiChar(B);
        end;
        SetCodePage(R, CodePage, False);
        Result := True;
      end;
    65001:
      begin
        R := __McpUtf8Of(U);
        SetCodePage(R, CP_UTF8, False);
        Result := True;
      end;
  else
    begin
      { Any other code page: the RTL converts, and a round trip proves nothing was lost. }
      Utf8 := __McpUtf8Of(U);
      SetCodePage(Utf8, CP_UTF8, False);
      R := Utf8;
      SetCodePage(R, CodePage, True);
      Back := R;
      SetCodePage(Back, CP_UTF8, True);
      Result := (Length(Back) = Length(Utf8)) and
        ((Length(Utf8) = 0) or CompareMem(Pointer(Back), Pointer(Utf8), Length(Utf8)));
    end;
  end;
end;

{ Bytes of a code page to UTF-16. }
function __McpFromCodePage(P: Pointer; Len: NativeInt; CodePage: Word): UnicodeString;
var
  I: NativeInt;
  B: Byte;
  Raw: RawByteString;
begin
  CodePage := __McpEffectiveCodePage(CodePage);
  case CodePage of
    1252, 28591, 20127:
      begin
        SetLength(Result, Len);
        for I := 0 to Len - 1 do
        begin
          B := __PMcpBytes(P)^[I];
          if (CodePage = 20127) and (B >= $80) then
            Result[I + 1] := WideChar($FFFD)
          else if (CodePage = 1252) and (B >= $80) and (B <= $9F) and (__Mcp1252High[B] <> 0) then
            Result[I + 1] := WideChar(__Mcp1252High[B])
          else
            Result[I + 1] := WideChar(B);
        end;
      end;
    65001:
      __McpDecodeUtf8(P, Len, True, Result);
  else
    begin
      SetString(Raw, PAnsiChar(P), Len);
      SetCodePage(Raw, CodePage, False);
      Result := UnicodeString(Raw);
    end;
  end;
end;

procedure __McpSetMessage(Res: __PMcpAbiValue; const Msg: UnicodeString);
var
  Utf8: RawByteString;
begin
  Utf8 := __McpUtf8Of(Msg);
  __McpSetBytes(Res, Pointer(Utf8), Length(Utf8));
end;

function __McpReject(Res: __PMcpAbiValue; const Name, Reason: string): Int32;
begin
  __McpSetMessage(Res, 'argument ''' + Name + ''': ' + Reason);
  Result := __McpBadArgument;
end;

function __McpBadKind(Res: __PMcpAbiValue; const Name: string; Kind: Int32): Int32;
begin
  __McpSetMessage(Res, 'bad call: argument ''' + Name + ''' has ABI kind ' + IntToStr(Kind));
  Result := __McpBadCall;
end;

function __McpInit(Error: __PMcpAbiValue): Int32; cdecl;
begin
  try
    __McpSetup;
    {$IFDEF MCP_SIGNALS}
    __McpInstallSignals;
    {$ENDIF}
    Result := __McpOk;
  except
    Result := __McpFail(Error);
  end;
end;

procedure __McpFree(P: Pointer); cdecl;
begin
  if P <> nil then
    FreeMem(P);
end;

procedure __McpEnter(var State: __TMcpCallState);
begin
  { Pascal code runs with Pascal's floating-point settings (exceptions for invalid operation,
    division by zero and overflow), whatever the host uses; the host's are restored on exit. }
  {$IF defined(CPUX64) or defined(CPUX86_64)}
  State.MXCSR := GetMXCSR;
  SetMXCSR($1900);
  {$IFEND}
  {$IF defined(CPUX86) or (defined(FPC) and (defined(CPUI386) or defined(CPUX86_64)))}
  State.CW := Get8087CW;
  Set8087CW(Default8087CW);
  {$IFEND}
  {$IFDEF MSWINDOWS}
  __McpReserveStack;
  {$ENDIF}
  Inc(__McpDepth);
end;

procedure __McpLeave(var State: __TMcpCallState);
begin
  Dec(__McpDepth);
  {$IFDEF MSWINDOWS}
  if __McpStackOverflowed then
    __McpSetStackGuard;
  {$ENDIF}
  {$IF defined(CPUX86) or (defined(FPC) and (defined(CPUI386) or defined(CPUX86_64)))}
  ClearExceptions(False);
  Set8087CW(State.CW);
  {$IFEND}
  {$IF defined(CPUX64) or defined(CPUX86_64)}
  SetMXCSR(State.MXCSR);
  {$IFEND}
end;

function __McpArg(Args: __PMcpAbiValue; Index: Integer): __PMcpAbiValue;
begin
  Result := __PMcpAbiValue(NativeUInt(Args) + NativeUInt(Index) * SizeOf(__TMcpAbiValue));
end;

function __McpIsAbsent(Args: __PMcpAbiValue; Index: Integer): Boolean;
begin
  Result := __McpArg(Args, Index)^.Kind = __McpKindAbsent;
end;

{ ABI 3: the call context's record (TMcpAbiContext of McpAttributes), owned by the runtime. }
function __McpGetContext(Args: __PMcpAbiValue; Index: Integer; out V: Pointer;
  Res: __PMcpAbiValue): Int32;
begin
  V := nil;
  if __McpArg(Args, Index)^.Kind <> __McpKindContext then
    Exit(__McpBadKind(Res, 'the call context', __McpArg(Args, Index)^.Kind));
  V := __McpArg(Args, Index)^.Ptr;
  Result := __McpOk;
end;

function __McpCheckCount(Count, Expected: Int32; Res: __PMcpAbiValue): Int32;
begin
  if Count = Expected then
    Result := __McpOk
  else
  begin
    __McpSetMessage(Res, 'bad call: ' + IntToStr(Count) + ' arguments given, ' +
      IntToStr(Expected) + ' expected');
    Result := __McpBadCall;
  end;
end;

function __McpGetInt(Args: __PMcpAbiValue; Index: Integer; const Name: string;
  Min, Max: Int64; out V: Int64; Res: __PMcpAbiValue): Int32;
var
  A: __PMcpAbiValue;
begin
  V := 0;
  A := __McpArg(Args, Index);
  if A^.Kind = __McpKindInt then
    V := Int64(A^.Bits)
  else if (A^.Kind = __McpKindUInt) and (A^.Bits <= UInt64(High(Int64))) then
    V := Int64(A^.Bits)
  else if A^.Kind = __McpKindUInt then
    Exit(__McpReject(Res, Name, UIntToStr(A^.Bits) + ' is out of range ' + IntToStr(Min) +
      '..' + IntToStr(Max)))
  else
    Exit(__McpBadKind(Res, Name, A^.Kind));
  if (V < Min) or (V > Max) then
    Exit(__McpReject(Res, Name, IntToStr(V) + ' is out of range ' + IntToStr(Min) + '..' +
      IntToStr(Max)));
  Result := __McpOk;
end;

function __McpGetUInt(Args: __PMcpAbiValue; Index: Integer; const Name: string;
  Max: UInt64; out V: UInt64; Res: __PMcpAbiValue): Int32;
var
  A: __PMcpAbiValue;
begin
  V := 0;
  A := __McpArg(Args, Index);
  if A^.Kind = __McpKindUInt then
    V := A^.Bits
  else if (A^.Kind = __McpKindInt) and (Int64(A^.Bits) >= 0) then
    V := A^.Bits
  else if A^.Kind = __McpKindInt then
    Exit(__McpReject(Res, Name, IntToStr(Int64(A^.Bits)) + ' is out of range 0..' +
      UIntToStr(Max)))
  else
    Exit(__McpBadKind(Res, Name, A^.Kind));
  if V > Max then
    Exit(__McpReject(Res, Name, UIntToStr(V) + ' is out of range 0..' + UIntToStr(Max)));
  Result := __McpOk;
end;

function __McpGetDouble(Args: __PMcpAbiValue; Index: Integer; const Name: string;
  out V: Double; Res: __PMcpAbiValue): Int32;
var
  A: __PMcpAbiValue;
begin
  V := 0;
  A := __McpArg(Args, Index);
  if A^.Kind <> __McpKindDouble then
    Exit(__McpBadKind(Res, Name, A^.Kind));
  Move(A^.Bits, V, SizeOf(Double));
  if IsNan(V) or IsInfinite(V) then
    Exit(__McpReject(Res, Name, 'not a finite number'));
  Result := __McpOk;
end;

function __McpGetSingle(Args: __PMcpAbiValue; Index: Integer; const Name: string;
  out V: Double; Res: __PMcpAbiValue): Int32;
begin
  Result := __McpGetDouble(Args, Index, Name, V, Res);
  if (Result = __McpOk) and (Abs(V) > MaxSingle) then
    Result := __McpReject(Res, Name, FloatToStr(V) + ' is beyond the range of Single');
end;

function __McpGetCurrency(Args: __PMcpAbiValue; Index: Integer; const Name: string;
  out V: Double; Res: __PMcpAbiValue): Int32;
begin
  Result := __McpGetDouble(Args, Index, Name, V, Res);
  if (Result = __McpOk) and (Abs(V) > 922337203685477.0) then
    Result := __McpReject(Res, Name, FloatToStr(V) + ' is beyond the range of Currency');
end;

function __McpGetComp(Args: __PMcpAbiValue; Index: Integer; const Name: string;
  out V: Int64; Res: __PMcpAbiValue): Int32;
var
  D: Double;
begin
  V := 0;
  Result := __McpGetDouble(Args, Index, Name, D, Res);
  if Result <> __McpOk then
    Exit;
  if (Abs(D) > 9007199254740992.0) or (Frac(D) <> 0) then
    Exit(__McpReject(Res, Name, FloatToStr(D) + ' is not a whole number within 2^53'));
  V := Trunc(D);
end;

function __McpGetBool(Args: __PMcpAbiValue; Index: Integer; const Name: string;
  out V: Boolean; Res: __PMcpAbiValue): Int32;
var
  A: __PMcpAbiValue;
begin
  V := False;
  A := __McpArg(Args, Index);
  if (A^.Kind <> __McpKindBool) or (A^.Bits > 1) then
    Exit(__McpBadKind(Res, Name, A^.Kind));
  V := A^.Bits = 1;
  Result := __McpOk;
end;

function __McpGetStr(Args: __PMcpAbiValue; Index: Integer; const Name: string;
  out V: UnicodeString; Res: __PMcpAbiValue): Int32;
var
  A: __PMcpAbiValue;
begin
  V := '';
  A := __McpArg(Args, Index);
  if (A^.Kind <> __McpKindString) or (A^.Len < 0) or (A^.Len >= MaxInt) or
    ((A^.Ptr = nil) and (A^.Len > 0)) then
    Exit(__McpBadKind(Res, Name, A^.Kind));
  if not __McpDecodeUtf8(A^.Ptr, A^.Len, False, V) then
    Exit(__McpReject(Res, Name, 'not valid UTF-8'));
  Result := __McpOk;
end;

function __McpGetUtf8(Args: __PMcpAbiValue; Index: Integer; const Name: string;
  out V: RawByteString; Res: __PMcpAbiValue): Int32;
var
  A: __PMcpAbiValue;
  U: UnicodeString;
begin
  V := '';
  Result := __McpGetStr(Args, Index, Name, U, Res);
  if Result <> __McpOk then
    Exit;
  A := __McpArg(Args, Index);
  SetString(V, PAnsiChar(A^.Ptr), A^.Len);
  SetCodePage(V, CP_UTF8, False);
end;

function __McpCodePageName(CodePage: Word): string;
begin
  Result := 'code page ' + IntToStr(__McpEffectiveCodePage(CodePage));
end;

function __McpGetAnsi(Args: __PMcpAbiValue; Index: Integer; const Name: string;
  CodePage: Word; MaxBytes: Integer; out V: RawByteString; Res: __PMcpAbiValue): Int32;
var
  U: UnicodeString;
begin
  V := '';
  Result := __McpGetStr(Args, Index, Name, U, Res);
  if Result <> __McpOk then
    Exit;
  if not __McpToCodePage(U, CodePage, V) then
    Exit(__McpReject(Res, Name, 'has characters that ' + __McpCodePageName(CodePage) +
      ' cannot represent'));
  if (MaxBytes >= 0) and (Length(V) > MaxBytes) then
    Exit(__McpReject(Res, Name, 'is ' + IntToStr(Length(V)) + ' bytes long in ' +
      __McpCodePageName(CodePage) + '; at most ' + IntToStr(MaxBytes) + ' fit'));
end;

function __McpGetWideChar(Args: __PMcpAbiValue; Index: Integer; const Name: string;
  out V: WideChar; Res: __PMcpAbiValue): Int32;
var
  U: UnicodeString;
begin
  V := #0;
  Result := __McpGetStr(Args, Index, Name, U, Res);
  if Result <> __McpOk then
    Exit;
  if Length(U) <> 1 then
    Exit(__McpReject(Res, Name, 'must be exactly one UTF-16 character'));
  V := U[1];
end;

function __McpGetAnsiChar(Args: __PMcpAbiValue; Index: Integer; const Name: string;
  out V: AnsiChar; Res: __PMcpAbiValue): Int32;
var
  R: RawByteString;
begin
  V := #0;
  Result := __McpGetAnsi(Args, Index, Name, 0, -1, R, Res);
  if Result <> __McpOk then
    Exit;
  if Length(R) <> 1 then
    Exit(__McpReject(Res, Name, 'must be exactly one character of ' +
      __McpCodePageName(0)));
  V := R[1];
end;

function __McpSetNone(Res: __PMcpAbiValue): Int32;
begin
  FillChar(Res^, SizeOf(Res^), 0);
  Result := __McpOk;
end;

function __McpSetInt(Res: __PMcpAbiValue; V: Int64): Int32;
begin
  FillChar(Res^, SizeOf(Res^), 0);
  Res^.Kind := __McpKindInt;
  Res^.Bits := UInt64(V);
  Result := __McpOk;
end;

function __McpSetUInt(Res: __PMcpAbiValue; V: UInt64): Int32;
begin
  FillChar(Res^, SizeOf(Res^), 0);
  Res^.Kind := __McpKindUInt;
  Res^.Bits := V;
  Result := __McpOk;
end;

function __McpSetDouble(Res: __PMcpAbiValue; V: Double): Int32;
begin
  if IsNan(V) or IsInfinite(V) then
  begin
    __McpSetMessage(Res, 'EInvalidOp: the result is not a finite number');
    Exit(__McpRaised);
  end;
  FillChar(Res^, SizeOf(Res^), 0);
  Res^.Kind := __McpKindDouble;
  Move(V, Res^.Bits, SizeOf(Double));
  Result := __McpOk;
end;

function __McpSetBool(Res: __PMcpAbiValue; V: Boolean): Int32;
begin
  FillChar(Res^, SizeOf(Res^), 0);
  Res^.Kind := __McpKindBool;
  Res^.Bits := Ord(V);
  Result := __McpOk;
end;

function __McpSetStr(Res: __PMcpAbiValue; const V: UnicodeString): Int32;
begin
  __McpSetMessage(Res, V);
  Result := __McpOk;
end;

function __McpSetRaw(Res: __PMcpAbiValue; const V: RawByteString; DeclaredCodePage: Word): Int32;
var
  CodePage: Word;
begin
  CodePage := StringCodePage(V);
  if (CodePage = 0) or (CodePage = $FFFF) then
    CodePage := DeclaredCodePage;
  Result := __McpSetStr(Res, __McpFromCodePage(Pointer(V), Length(V), CodePage));
end;

function __McpSetShort(Res: __PMcpAbiValue; const V: ShortString): Int32;
begin
  Result := __McpSetStr(Res, __McpFromCodePage(@V[1], Length(V), 0));
end;

function __McpSetWideChar(Res: __PMcpAbiValue; V: WideChar): Int32;
var
  U: UnicodeString;
begin
  SetLength(U, 1);
  U[1] := V;
  Result := __McpSetStr(Res, U);
end;

function __McpSetAnsiChar(Res: __PMcpAbiValue; V: AnsiChar): Int32;
begin
  Result := __McpSetStr(Res, __McpFromCodePage(@V, 1, 0));
end;

{ Whether E's class is, or descends from, a class named Name (McpAttributes' EMcpToolError
  without a dependency on that unit). }
function __McpIsClass(E: TObject; const Name: string): Boolean;
var
  C: TClass;
begin
  Result := False;
  if E = nil then
    Exit;
  C := E.ClassType;
  while C <> nil do
  begin
    if C.ClassNameIs(Name) then
      Exit(True);
    C := C.ClassParent;
  end;
end;

function __McpFail(Res: __PMcpAbiValue): Int32;
var
  E: TObject;
begin
  Result := __McpRaised;
  try
    E := ExceptObject;
    if __McpIsClass(E, 'EMcpToolError') then
    begin
      { ABI 3: a tool error meant for the client, its message only. }
      __McpSetMessage(Res, Exception(E).Message);
      Exit(__McpToolError);
    end;
    {$IFDEF MSWINDOWS}
    if E is EStackOverflow then
      __McpStackOverflowed := True;
    {$ENDIF}
    if E is Exception then
      __McpSetMessage(Res, E.ClassName + ': ' + Exception(E).Message)
    else if E <> nil then
      __McpSetMessage(Res, E.ClassName)
    else
      __McpSetMessage(Res, 'Exception: unknown exception');
  except
    { Out of memory while reporting: leave the message out rather than raise. }
    FillChar(Res^, SizeOf(Res^), 0);
  end;
end;

{ ABI 2: composite values (docs/abi.md, "Composite values"). Argument blocks belong to the
  runtime and are only read; result blocks and their strings are allocated here with GetMem and
  released by the runtime through mcp_free. }

function __McpBlock(Args: __PMcpAbiValue; Index: Integer; out Block: __PMcpAbiValue;
  Res: __PMcpAbiValue): Int32;
var
  A: __PMcpAbiValue;
begin
  A := __McpArg(Args, Index);
  Block := __PMcpAbiValue(A^.Ptr);
  if ((A^.Kind <> __McpKindRecord) and (A^.Kind <> __McpKindArray)) or (Block = nil) then
  begin
    __McpSetMessage(Res, 'bad call: argument ' + IntToStr(Index) + ' is not a block');
    Exit(__McpBadCall);
  end;
  Result := __McpOk;
end;

function __McpGetHead(Block: __PMcpAbiValue; Cursor: Integer; const Name: string;
  Kind: Int32; Expected: Int64; out Count: Integer; Res: __PMcpAbiValue): Int32;
var
  A: __PMcpAbiValue;
begin
  Count := 0;
  A := __McpArg(Block, Cursor);
  if (A^.Kind <> Kind) or ((Expected >= 0) and (A^.Bits <> UInt64(Expected))) or
    (A^.Bits > UInt64(MaxInt)) then
  begin
    __McpSetMessage(Res, 'bad call: ' + Name + ' has kind ' + IntToStr(A^.Kind) + ' and ' +
      UIntToStr(A^.Bits) + ' children');
    Exit(__McpBadCall);
  end;
  Count := Integer(A^.Bits);
  Result := __McpOk;
end;

function __McpGetBytes(Args: __PMcpAbiValue; Index: Integer; const Name: string;
  out V: TBytes; Res: __PMcpAbiValue): Int32;
var
  A: __PMcpAbiValue;
begin
  V := nil;
  A := __McpArg(Args, Index);
  if A^.Kind <> __McpKindBytes then
    Exit(__McpBadKind(Res, Name, A^.Kind));
  SetLength(V, A^.Len);
  if A^.Len > 0 then
    Move(A^.Ptr^, V[0], A^.Len);
  Result := __McpOk;
end;

function __McpSetByteArray(Res: __PMcpAbiValue; const V: TBytes): Int32;
begin
  if Length(V) > 0 then
    __McpSetBytes(Res, @V[0], Length(V))
  else
    __McpSetBytes(Res, nil, 0);
  Res^.Kind := __McpKindBytes;
  Result := __McpOk;
end;

procedure __McpWInit(var W: __TMcpWriter);
begin
  W.Buf := nil;
  W.Count := 0;
  W.Cap := 0;
end;

procedure __McpWAdd(var W: __TMcpWriter; const V: __TMcpAbiValue);
begin
  if W.Count = W.Cap then
  begin
    if W.Cap = 0 then
      W.Cap := 16
    else
      W.Cap := W.Cap * 2;
    ReallocMem(W.Buf, W.Cap * SizeOf(__TMcpAbiValue));
  end;
  __McpArg(W.Buf, W.Count)^ := V;
  Inc(W.Count);
end;

function __McpWOpen(var W: __TMcpWriter; Kind: Int32; Count: Int64): NativeInt;
var
  V: __TMcpAbiValue;
begin
  FillChar(V, SizeOf(V), 0);
  V.Kind := Kind;
  V.Bits := UInt64(Count);
  __McpWAdd(W, V);
  Result := W.Count - 1;
end;

procedure __McpWClose(var W: __TMcpWriter; Header: NativeInt);
begin
  __McpArg(W.Buf, Header)^.Len := W.Count - Header - 1;
end;

function __McpWFinish(var W: __TMcpWriter; Res: __PMcpAbiValue): Int32;
begin
  Res^ := W.Buf^;
  Res^.Ptr := W.Buf;
  Res^.Len := W.Count;
  { The block now belongs to the runtime. }
  W.Buf := nil;
  W.Count := 0;
  W.Cap := 0;
  Result := __McpOk;
end;

procedure __McpWFree(var W: __TMcpWriter);
var
  I: NativeInt;
  A: __PMcpAbiValue;
begin
  for I := 0 to W.Count - 1 do
  begin
    A := __McpArg(W.Buf, I);
    if ((A^.Kind = __McpKindString) or (A^.Kind = __McpKindBytes)) and (A^.Ptr <> nil) then
      FreeMem(A^.Ptr);
  end;
  if W.Buf <> nil then
    FreeMem(W.Buf);
  __McpWInit(W);
end;

function __McpModuleNotOpen(Res: __PMcpAbiValue; const Resolver: string): Int32;
begin
  __McpSetMessage(Res, 'EMcpModuleNotOpen: module not open (' + Resolver + ' is nil)');
  Result := __McpRaised;
end;

initialization
  __McpSetup;
end.
