unit ValueTools;

(* Structured values for delphi-mcp: records, arrays, sets, TBytes, TStrings and var/out
  parameters as tool parameters and results, with no wrapper routines. Together the tools use
  every composite row of docs/types.md. Free Pascal 3.2 has no attributes, so they are written
  inside {$IFNDEF FPC} blocks; delphi-mcp reads the units as Delphi sees them. *)

{$IFDEF FPC}
  {$MODE DELPHIUNICODE}
{$ENDIF}

interface

uses
  SysUtils, Classes, {$IFDEF FPC}fpjson{$ELSE}System.JSON{$ENDIF}{$IFNDEF FPC}, McpAttributes{$ENDIF};

type
  /// A primary colour.
  TColor = (Red, Green, Blue);
  /// Some primary colours.
  TColors = set of TColor;

  /// A point on the plane.
  TPoint2 = record
    /// Horizontal position.
    X: Integer;
    /// Vertical position.
    Y: Integer;
  end;
  /// Points in order.
  TPoints = array of TPoint2;
  /// Three numbers, no more and no fewer.
  TTriple = array[1..3] of Double;
  /// One row of a matrix.
  TRow = array of Integer;
  /// Rows of numbers.
  TMatrix = array of TRow;

  /// A named polygon.
  TShape = packed record
    /// What it is called.
    Name: string;
    /// Its colour.
    Color: TColor;
    /// Its corners in order.
    Corners: TPoints;
    /// Scale along X, Y and Z.
    Scale: TTriple;
  end;

  /// One line of an order.
  {$IFNDEF FPC}[McpNaming('camelCase')]{$ENDIF}
  TOrderLine = record
    /// Stock-keeping unit.
    Sku: string;
    /// How many.
    Quantity: Integer;
    /// Price of one.
    UnitPrice: Double;
    /// Wrapped as a gift.
    {$IFNDEF FPC}[McpName('gift')]{$ENDIF}
    IsGift: Boolean;
  end;
  /// The lines of an order.
  TOrderLines = array of TOrderLine;

  /// <summary>Named binary data.</summary>
  TBlob = record
    /// <summary>What the data is.</summary>
    Name: string;
    /// <summary>The data (base64 in JSON).</summary>
    Data: TBytes;
  end;

  TBlobs = array of TBlob;

/// <summary>Moves a point.</summary>
{$IFNDEF FPC}[McpTool]{$ENDIF}
function MovePoint(P: TPoint2; DX, DY: Integer): TPoint2;

/// <summary>Sums whole numbers (an open array parameter).</summary>
{$IFNDEF FPC}[McpTool]{$ENDIF}
function SumAll(const Values: array of Integer): Int64;

/// <summary>The total price of an order.</summary>
{$IFNDEF FPC}[McpTool]{$ENDIF}
function OrderTotal(Lines: TOrderLines): Double;

/// <summary>Transposes a matrix (rows of equal length).</summary>
{$IFNDEF FPC}[McpTool]{$ENDIF}
function Transpose(M: TMatrix): TMatrix;

/// <summary>The first N even numbers.</summary>
{$IFNDEF FPC}[McpTool]{$ENDIF}
function Evens(Count: Integer): TArray<Integer>;

/// <summary>Scales three numbers.</summary>
{$IFNDEF FPC}[McpTool]{$ENDIF}
function ScaleTriple(V: TTriple; Factor: Double): TTriple;

/// <summary>Describes a shape.</summary>
{$IFNDEF FPC}[McpTool]{$ENDIF}
function DescribeShape(Shape: TShape): string;

/// <summary>A square of the given size.</summary>
{$IFNDEF FPC}[McpTool]{$ENDIF}
function MakeSquare(Name: string; Size: Integer; Color: TColor): TShape;

/// <summary>The colours not in a set.</summary>
{$IFNDEF FPC}[McpTool]{$ENDIF}
function Complement(Colors: TColors): TColors;

/// <summary>Reverses bytes.</summary>
{$IFNDEF FPC}[McpTool]{$ENDIF}
function ReverseBytes(Data: TBytes): TBytes;

/// <summary>Reverses the bytes of each blob (TBytes inside records inside an array).</summary>
{$IFNDEF FPC}[McpTool]{$ENDIF}
function ReverseBlobs(Blobs: TBlobs): TBlobs;

/// <summary>Lines of text in reverse order; the result is a new list.</summary>
{$IFNDEF FPC}[McpTool]{$ENDIF}
function ReverseLines(Lines: TStrings): TStrings;

/// <summary>Parses a whole number.</summary>
/// <param name="Value">The number, when the text is one (else 0).</param>
{$IFNDEF FPC}[McpTool]{$ENDIF}
function TryParse(const S: string; out Value: Integer): Boolean;

/// <summary>Swaps two texts.</summary>
{$IFNDEF FPC}[McpTool]{$ENDIF}
procedure Swap(var A, B: string);

/// <summary>Joins a person's names.</summary>
{$IFNDEF FPC}[McpTool]{$ENDIF}
{$IFNDEF FPC}[McpNaming('snake_case')]{$ENDIF}
function FullName(FirstName, LastName: string): string;

/// <summary>Counts the words of texts (a JSON handler: the runtime checks the arguments
/// against CountWords.schema.json before the call).</summary>
{$IFNDEF FPC}[McpTool]{$ENDIF}
{$IFNDEF FPC}[McpSchemaFile('CountWords.schema.json')]{$ENDIF}
function CountWords(const Args: TJSONObject): {$IFDEF FPC}TJSONData{$ELSE}TJSONValue{$ENDIF};

implementation

function WordsIn(const S: string): Integer;
var
  I: Integer;
  InWord: Boolean;
begin
  Result := 0;
  InWord := False;
  for I := 1 to Length(S) do
    if S[I] <= ' ' then
      InWord := False
    else if not InWord then
    begin
      InWord := True;
      Inc(Result);
    end;
end;

function CountWords(const Args: TJSONObject): {$IFDEF FPC}TJSONData{$ELSE}TJSONValue{$ENDIF};
var
  Texts: TJSONArray;
  I, Total: Integer;
  Answer: TJSONObject;
begin
  {$IFDEF FPC}
  Texts := Args.Arrays['texts'];
  {$ELSE}
  Texts := Args.GetValue('texts') as TJSONArray;
  {$ENDIF}
  Total := 0;
  for I := 0 to Texts.Count - 1 do
    Total := Total + WordsIn(Texts.Items[I].Value);
  Answer := TJSONObject.Create;
  {$IFDEF FPC}
  Answer.Add('texts', Texts.Count);
  Answer.Add('words', Total);
  {$ELSE}
  Answer.AddPair('texts', TJSONNumber.Create(Texts.Count));
  Answer.AddPair('words', TJSONNumber.Create(Total));
  {$ENDIF}
  Result := Answer;
end;

function MovePoint(P: TPoint2; DX, DY: Integer): TPoint2;
begin
  Result.X := P.X + DX;
  Result.Y := P.Y + DY;
end;

function SumAll(const Values: array of Integer): Int64;
var
  I: Integer;
begin
  Result := 0;
  for I := Low(Values) to High(Values) do
    Result := Result + Values[I];
end;

function OrderTotal(Lines: TOrderLines): Double;
var
  I: Integer;
begin
  Result := 0;
  for I := 0 to High(Lines) do
    if not Lines[I].IsGift then
      Result := Result + Lines[I].Quantity * Lines[I].UnitPrice;
end;

function Transpose(M: TMatrix): TMatrix;
var
  I, J: Integer;
begin
  Result := nil;
  if Length(M) = 0 then
    Exit;
  SetLength(Result, Length(M[0]));
  for J := 0 to High(Result) do
  begin
    SetLength(Result[J], Length(M));
    for I := 0 to High(M) do
    begin
      if Length(M[I]) <> Length(M[0]) then
        raise EArgumentException.Create('the rows differ in length');
      Result[J][I] := M[I][J];
    end;
  end;
end;

function Evens(Count: Integer): TArray<Integer>;
var
  I: Integer;
begin
  SetLength(Result, Count);
  for I := 0 to Count - 1 do
    Result[I] := 2 * I;
end;

function ScaleTriple(V: TTriple; Factor: Double): TTriple;
var
  I: Integer;
begin
  for I := Low(V) to High(V) do
    Result[I] := V[I] * Factor;
end;

const
  ColorNames: array[TColor] of string = ('red', 'green', 'blue');

function DescribeShape(Shape: TShape): string;
begin
  Result := Format('%s: %s, %d corners, scale %g', [Shape.Name, ColorNames[Shape.Color],
    Length(Shape.Corners), Shape.Scale[1]]);
end;

function MakeSquare(Name: string; Size: Integer; Color: TColor): TShape;
begin
  Result.Name := Name;
  Result.Color := Color;
  SetLength(Result.Corners, 4);
  Result.Corners[0].X := 0;
  Result.Corners[0].Y := 0;
  Result.Corners[1].X := Size;
  Result.Corners[1].Y := 0;
  Result.Corners[2].X := Size;
  Result.Corners[2].Y := Size;
  Result.Corners[3].X := 0;
  Result.Corners[3].Y := Size;
  Result.Scale[1] := 1;
  Result.Scale[2] := 1;
  Result.Scale[3] := 0.5;
end;

function Complement(Colors: TColors): TColors;
begin
  Result := [Low(TColor)..High(TColor)] - Colors;
end;

function ReverseBytes(Data: TBytes): TBytes;
var
  I: Integer;
begin
  SetLength(Result, Length(Data));
  for I := 0 to High(Data) do
    Result[I] := Data[High(Data) - I];
end;

function ReverseBlobs(Blobs: TBlobs): TBlobs;
var
  I: Integer;
begin
  SetLength(Result, Length(Blobs));
  for I := 0 to High(Blobs) do
  begin
    Result[I].Name := Blobs[I].Name;
    Result[I].Data := ReverseBytes(Blobs[I].Data);
  end;
end;

function ReverseLines(Lines: TStrings): TStrings;
var
  I: Integer;
begin
  Result := TStringList.Create;
  for I := Lines.Count - 1 downto 0 do
    Result.Add(Lines[I]);
end;

function TryParse(const S: string; out Value: Integer): Boolean;
begin
  Result := TryStrToInt(S, Value);
  if not Result then
    Value := 0;
end;

procedure Swap(var A, B: string);
var
  T: string;
begin
  T := A;
  A := B;
  B := T;
end;

function FullName(FirstName, LastName: string): string;
begin
  Result := FirstName + ' ' + LastName;
end;

end.
