unit FaultTools;

(* Tools that misbehave on purpose, for delphi-mcp's fault-containment tests and for trying
  `serve --isolate`, `--workers` and `--call-timeout` by hand (README.md says what each tool
  does to a server in process and isolated). Never serve this library to an assistant. *)

{$IFDEF FPC}
  {$MODE DELPHIUNICODE}
{$ENDIF}

interface

uses
  {$IFDEF UNIX}{$IFDEF FPC}BaseUnix,{$ENDIF}{$ENDIF}
  {$IFDEF MSWINDOWS}Windows,{$ENDIF}
  SysUtils, Classes{$IFNDEF FPC}, McpAttributes{$ENDIF};

/// <summary>Raises an exception with the given message.</summary>
{$IFNDEF FPC}[McpTool]{$ENDIF}
function RaiseError(Message: string): Integer;

/// <summary>Reads through a nil pointer on the calling thread.</summary>
{$IFNDEF FPC}[McpTool]{$ENDIF}
function NilDereference: Integer;

/// <summary>Divides by zero in integer arithmetic.</summary>
{$IFNDEF FPC}[McpTool]{$ENDIF}
function DivideByZero(Value: Integer): Integer;

/// <summary>Divides two floating-point numbers (a zero divisor is a floating-point fault).</summary>
{$IFNDEF FPC}[McpTool]{$ENDIF}
function DivideFloats(A: Double; B: Double): Double;

/// <summary>Recurses until the stack overflows.</summary>
{$IFNDEF FPC}[McpTool]{$ENDIF}
function OverflowStack(Depth: Integer): Integer;

/// <summary>Starts a thread that reads through a nil pointer, and waits for it.</summary>
{$IFNDEF FPC}[McpTool]{$ENDIF}
function FaultInThread: Integer;

/// <summary>Ends the process with an exit code (System.Halt).</summary>
{$IFNDEF FPC}[McpTool]{$ENDIF}
procedure HaltProcess(Code: Integer);

/// <summary>Ends the process with SIGABRT (Unix) or exit code 3 (Windows).</summary>
{$IFNDEF FPC}[McpTool]{$ENDIF}
procedure AbortProcess;

/// <summary>Never returns.</summary>
{$IFNDEF FPC}[McpTool]{$ENDIF}
function LoopForever: Integer;

/// <summary>Sleeps, then returns the milliseconds slept.</summary>
{$IFNDEF FPC}[McpTool]{$ENDIF}
function SleepFor(Milliseconds: Integer): Integer;

/// <summary>Writes a line to standard output (which must not reach the protocol stream).</summary>
{$IFNDEF FPC}[McpTool]{$ENDIF}
function WriteToStdout(Text: string): Integer;

/// <summary>Allocates and touches memory, frees it, and returns the bytes touched.</summary>
{$IFNDEF FPC}[McpTool]{$ENDIF}
function AllocateMegabytes(Count: Int64): Int64;

/// <summary>Returns a string of the given size in megabytes (ASCII, 1,048,576 bytes each).</summary>
{$IFNDEF FPC}[McpTool]{$ENDIF}
function HugeString(Megabytes: Integer): string;

/// <summary>Counts the calls of this tool served by this process.</summary>
{$IFNDEF FPC}[McpTool]{$ENDIF}
function CountCalls: Integer;

/// <summary>The identifier of the process running the library.</summary>
{$IFNDEF FPC}[McpTool]{$ENDIF}
function ProcessId: Int64;

implementation

{$IFDEF UNIX}
(* libc's abort raises SIGABRT on the calling thread, so the process ends inside the call. *)
procedure CAbort; cdecl; external 'c' name 'abort';
{$ENDIF}

type
  TFaultingThread = class(TThread)
  protected
    procedure Execute; override;
  end;

var
  GCalls: Integer;
  GStop: Boolean;

function RaiseError(Message: string): Integer;
begin
  raise Exception.Create(Message);
end;

function NilDereference: Integer;
var
  P: PInteger;
begin
  P := nil;
  Result := P^;
end;

function DivideByZero(Value: Integer): Integer;
var
  Zero: Integer;
begin
  Zero := GCalls - GCalls;
  Result := Value div Zero;
end;

function DivideFloats(A: Double; B: Double): Double;
begin
  Result := A / B;
end;

function OverflowStack(Depth: Integer): Integer;
var
  Pad: array[0..1023] of Byte;
begin
  Pad[Depth and 1023] := Byte(Depth);
  Result := OverflowStack(Depth + 1) + Pad[(Depth + 7) and 1023];
end;

procedure TFaultingThread.Execute;
var
  P: PInteger;
begin
  P := nil;
  P^ := 1;
end;

function FaultInThread: Integer;
var
  Thread: TFaultingThread;
begin
  Thread := TFaultingThread.Create(False);
  try
    Thread.WaitFor;
  finally
    Thread.Free;
  end;
  Result := 0;
end;

procedure HaltProcess(Code: Integer);
begin
  Halt(Code);
end;

procedure AbortProcess;
begin
  {$IFDEF UNIX}
  CAbort;
  {$ELSE}
  Halt(3);
  {$ENDIF}
end;

function LoopForever: Integer;
begin
  Result := 0;
  while not GStop do
    Inc(Result);
end;

function SleepFor(Milliseconds: Integer): Integer;
begin
  Sleep(Milliseconds);
  Result := Milliseconds;
end;

function WriteToStdout(Text: string): Integer;
begin
  WriteLn(Text);
  Flush(Output);
  Result := Length(Text);
end;

function AllocateMegabytes(Count: Int64): Int64;
var
  P: PByte;
  Size: NativeUInt;
begin
  if Count < 0 then
    raise EArgumentException.Create('Count must not be negative');
  Size := NativeUInt(Count) * 1024 * 1024;
  GetMem(P, Size);
  try
    FillChar(P^, Size, 1);
  finally
    FreeMem(P);
  end;
  Result := Size;
end;

function HugeString(Megabytes: Integer): string;
begin
  Result := StringOfChar('x', Megabytes * 1024 * 1024);
end;

function CountCalls: Integer;
begin
  Inc(GCalls);
  Result := GCalls;
end;

function ProcessId: Int64;
begin
  {$IFDEF MSWINDOWS}
  Result := GetCurrentProcessId;
  {$ELSE}
  Result := FpGetpid;
  {$ENDIF}
end;

end.
