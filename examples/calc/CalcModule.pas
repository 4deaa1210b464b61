unit CalcModule;

(* The MCP2Delphi instance-tools example, for delphi-mcp: a data module whose methods are tools.
  Free Pascal 3.2 has no attributes, so they are written inside {$IFNDEF FPC} blocks; delphi-mcp
  reads the units as Delphi sees them. Together the tools use every row of docs/types.md. *)

{$IFDEF FPC}
  {$MODE DELPHIUNICODE}
{$ENDIF}

interface

uses
  SysUtils, Classes, Math, DateUtils{$IFNDEF FPC}, McpAttributes{$ENDIF};

type
  /// How RoundValue rounds.
  TRounding = (rmNearest, rmDown, rmUp);
  /// A whole percentage.
  TPercent = 0..100;
  /// An amount of money.
  TAmount = type Double;
  /// A short product code.
  TCode = String[8];
  /// Text in Windows-1252.
  TLatin1 = type AnsiString(1252);

  /// <summary>What every calculation module can do.</summary>
  TModuleBase = class(TDataModule)
  public
    /// <summary>Describes the module: its class and how many calls it has served.</summary>
    {$IFNDEF FPC}[McpTool('describe')]{$ENDIF}
    {$IFNDEF FPC}[McpReadOnly]{$ENDIF}
    function Describe: string;
  protected
    FCalls: Integer;
  end;

  {$IFNDEF FPC}[McpInstance('CurrentCalculationModule', 'calc_')]{$ENDIF}
  TCalculationModule = class(TModuleBase)
  private
    FMemory: Currency;
  public
    /// <summary>Multiply a value by a factor.</summary>
    /// <param name="Value">The number to scale.</param>
    /// <param name="Factor">The multiplier; 1 when not given.</param>
    {$IFNDEF FPC}[McpTool('scale', 'Multiply a value by a factor')]{$ENDIF}
    {$IFNDEF FPC}[McpTitle('Scale a value')]{$ENDIF}
    {$IFNDEF FPC}[McpReadOnly]{$ENDIF}
    {$IFNDEF FPC}[McpIdempotent]{$ENDIF}
    function Scale(Value: Double; Factor: Double = 1): Double;

    /// <summary>Adds two whole numbers.</summary>
    {$IFNDEF FPC}[McpTool('add_integers')]{$ENDIF}
    function Add(A, B: Int64): Int64; overload;
    /// <summary>Adds two numbers.</summary>
    {$IFNDEF FPC}[McpTool('add_numbers')]{$ENDIF}
    function Add(A, B: Double): Double; overload;

    /// <summary>Divides A by B; raises when B is zero.</summary>
    {$IFNDEF FPC}[McpTool]{$ENDIF}
    function Divide(A, B: Int64): Int64;

    /// <summary>Sums one value of each fixed-size integer type.</summary>
    {$IFNDEF FPC}[McpTool]{$ENDIF}
    function SumIntegers(A: ShortInt; B: Byte; C: SmallInt; D: Word; E: Integer;
      F: Cardinal; G: LongInt; H: LongWord; I: FixedInt; J: FixedUInt): Int64;

    /// <summary>The larger of two unsigned 64-bit values.</summary>
    {$IFNDEF FPC}[McpTool]{$ENDIF}
    function MaxUnsigned(A: UInt64; B: NativeUInt): UInt64;

    /// <summary>Negates a pointer-sized integer.</summary>
    {$IFNDEF FPC}[McpTool]{$ENDIF}
    function Negate(Value: NativeInt): NativeInt;

    /// <summary>The mean of four numbers of different precision.</summary>
    {$IFNDEF FPC}[McpTool]{$ENDIF}
    function Average(A: Single; B: Double; C: Real; D: Extended): Double;

    /// <summary>Rounds a number to a whole number.</summary>
    /// <param name="Mode">rmNearest, rmDown or rmUp.</param>
    {$IFNDEF FPC}[McpTool]{$ENDIF}
    function RoundValue(Value: Double; Mode: TRounding = rmNearest): Comp;

    /// <summary>Stores an amount of money in the module's memory.</summary>
    {$IFNDEF FPC}[McpTool]{$ENDIF}
    {$IFNDEF FPC}[McpDestructive(False)]{$ENDIF}
    procedure StoreMemory(Value: Currency);
    /// <summary>The amount in the module's memory.</summary>
    {$IFNDEF FPC}[McpTool]{$ENDIF}
    function RecallMemory: Currency;

    /// <summary>Percent of an amount.</summary>
    {$IFNDEF FPC}[McpTool]{$ENDIF}
    function PercentOf(Amount: TAmount; Percent: TPercent): TAmount;

    /// <summary>Whether a number is positive.</summary>
    {$IFNDEF FPC}[McpTool]{$ENDIF}
    function IsPositive(Value: Double; AllowZero: Boolean = False): Boolean;

    /// <summary>Formats a number between a prefix and a suffix.</summary>
    {$IFNDEF FPC}[McpTool]{$ENDIF}
    function FormatNumber(Value: Double; Prefix: string = ''; Suffix: UTF8String = ''): string;

    /// <summary>Repeats a text.</summary>
    {$IFNDEF FPC}[McpTool('repeat_text')]{$ENDIF}
    function RepeatText(Text: WideString; Count: TPercent): UTF8String;

    /// <summary>Upper-cases text in the ANSI code page.</summary>
    {$IFNDEF FPC}[McpTool]{$ENDIF}
    function UpperAnsi(Text: AnsiString): AnsiString;

    /// <summary>Byte length of a text in Windows-1252.</summary>
    {$IFNDEF FPC}[McpTool]{$ENDIF}
    function Latin1Length(Text: TLatin1): Integer;

    /// <summary>A product code for a number.</summary>
    {$IFNDEF FPC}[McpTool]{$ENDIF}
    function ProductCode(Prefix: TCode; Number: Word): ShortString;

    /// <summary>The first character of a text.</summary>
    {$IFNDEF FPC}[McpTool]{$ENDIF}
    function FirstChar(Text: string): Char;

    /// <summary>Joins two texts with a one-byte separator.</summary>
    {$IFNDEF FPC}[McpTool]{$ENDIF}
    function JoinWith(A, B: string; Separator: AnsiChar = ','): string;

    /// <summary>Adds days to a date.</summary>
    {$IFNDEF FPC}[McpTool]{$ENDIF}
    function AddDays(Date: TDate; Days: Integer): TDate;
    /// <summary>Adds hours to a time of day (wrapping at midnight).</summary>
    {$IFNDEF FPC}[McpTool]{$ENDIF}
    function AddHours(Time: TTime; Hours: Double): TTime;
    /// <summary>Days between two moments.</summary>
    {$IFNDEF FPC}[McpTool]{$ENDIF}
    function DaysBetween(A, B: TDateTime): Double;

    /// <summary>Writes a note to standard error.</summary>
    {$IFNDEF FPC}[McpTool]{$ENDIF}
    {$IFNDEF FPC}[McpNil('Sender')]{$ENDIF}
    procedure Note(Text: string; Sender: TObject);

    /// <summary>The version of the calculation module.</summary>
    {$IFNDEF FPC}[McpTool]{$ENDIF}
    class function Version: string;

    /// <summary>Creates the module (tools report "module not open" until then).</summary>
    {$IFNDEF FPC}[McpTool]{$ENDIF}
    class procedure OpenModule;
    /// <summary>Frees the module.</summary>
    {$IFNDEF FPC}[McpTool]{$ENDIF}
    class procedure CloseModule;
  end;

/// The live module of the instance tools (nil when closed).
function CurrentCalculationModule: TCalculationModule;

implementation

var
  GModule: TCalculationModule;

function CurrentCalculationModule: TCalculationModule;
begin
  Result := GModule;
end;

function TModuleBase.Describe: string;
begin
  Inc(FCalls);
  Result := Format('%s, %d call(s)', [ClassName, FCalls]);
end;

function TCalculationModule.Scale(Value: Double; Factor: Double): Double;
begin
  Inc(FCalls);
  Result := Value * Factor;
end;

function TCalculationModule.Add(A, B: Int64): Int64;
begin
  Result := A + B;
end;

function TCalculationModule.Add(A, B: Double): Double;
begin
  Result := A + B;
end;

function TCalculationModule.Divide(A, B: Int64): Int64;
begin
  if B = 0 then
    raise EDivByZero.Create('cannot divide ' + IntToStr(A) + ' by zero');
  Result := A div B;
end;

function TCalculationModule.SumIntegers(A: ShortInt; B: Byte; C: SmallInt; D: Word;
  E: Integer; F: Cardinal; G: LongInt; H: LongWord; I: FixedInt; J: FixedUInt): Int64;
begin
  Result := Int64(A) + B + C + D + E + F + G + H + I + J;
end;

function TCalculationModule.MaxUnsigned(A: UInt64; B: NativeUInt): UInt64;
begin
  if A > B then
    Result := A
  else
    Result := B;
end;

function TCalculationModule.Negate(Value: NativeInt): NativeInt;
begin
  Result := -Value;
end;

function TCalculationModule.Average(A: Single; B: Double; C: Real; D: Extended): Double;
begin
  Result := (A + B + C + D) / 4;
end;

function TCalculationModule.RoundValue(Value: Double; Mode: TRounding): Comp;
begin
  case Mode of
    rmDown: Result := Floor(Value);
    rmUp: Result := Ceil(Value);
  else
    Result := Round(Value);
  end;
end;

procedure TCalculationModule.StoreMemory(Value: Currency);
begin
  FMemory := Value;
end;

function TCalculationModule.RecallMemory: Currency;
begin
  Result := FMemory;
end;

function TCalculationModule.PercentOf(Amount: TAmount; Percent: TPercent): TAmount;
begin
  Result := Amount * Percent / 100;
end;

function TCalculationModule.IsPositive(Value: Double; AllowZero: Boolean): Boolean;
begin
  Result := (Value > 0) or (AllowZero and (Value = 0));
end;

function TCalculationModule.FormatNumber(Value: Double; Prefix: string;
  Suffix: UTF8String): string;
begin
  Result := Prefix + FloatToStr(Value) + UTF8ToString(Suffix);
end;

function TCalculationModule.RepeatText(Text: WideString; Count: TPercent): UTF8String;
var
  S: UnicodeString;
  I: Integer;
begin
  S := '';
  for I := 1 to Count do
    S := S + Text;
  Result := UTF8Encode(S);
end;

function TCalculationModule.UpperAnsi(Text: AnsiString): AnsiString;
begin
  // Through UnicodeString: FPC 3.2.2's AnsiUpperCase(AnsiString) returns one byte too many
  // (a trailing #0) when the fpwidestring manager is in use.
  Result := AnsiString({$IFDEF FPC}UnicodeUpperCase{$ELSE}AnsiUpperCase{$ENDIF}(UnicodeString(Text)));
end;

function TCalculationModule.Latin1Length(Text: TLatin1): Integer;
begin
  Result := Length(Text);
end;

function TCalculationModule.ProductCode(Prefix: TCode; Number: Word): ShortString;
begin
  Result := Prefix + '-' + ShortString(IntToStr(Number));
end;

function TCalculationModule.FirstChar(Text: string): Char;
begin
  if Text = '' then
    raise EArgumentException.Create('the text is empty');
  Result := Text[1];
end;

function TCalculationModule.JoinWith(A, B: string; Separator: AnsiChar): string;
begin
  Result := A + string(Separator) + B;
end;

function TCalculationModule.AddDays(Date: TDate; Days: Integer): TDate;
begin
  Result := IncDay(Date, Days);
end;

function TCalculationModule.AddHours(Time: TTime; Hours: Double): TTime;
begin
  Result := Frac(Time + Hours / 24);
  if Result < 0 then
    Result := Result + 1;
end;

function TCalculationModule.DaysBetween(A, B: TDateTime): Double;
begin
  Result := B - A;
end;

procedure TCalculationModule.Note(Text: string; Sender: TObject);
begin
  if Sender = nil then
    Sender := Self;
  WriteLn(ErrOutput, Sender.ClassName, ': ', Text);
end;

class function TCalculationModule.Version: string;
begin
  Result := '1.0.0';
end;

class procedure TCalculationModule.OpenModule;
begin
  if GModule = nil then
    GModule := TCalculationModule.{$IFDEF FPC}CreateNew{$ELSE}Create{$ENDIF}(nil);
end;

class procedure TCalculationModule.CloseModule;
begin
  FreeAndNil(GModule);
end;

initialization
  TCalculationModule.OpenModule;

finalization
  TCalculationModule.CloseModule;

end.
