unit RecordParam;

interface

type
  TPoint = record
    X, Y: Integer;
  end;

/// <summary>Length of a point.</summary>
[McpTool]
function Norm(P: TPoint): Double;

implementation

function Norm(P: TPoint): Double;
begin
  Result := Sqrt(P.X * P.X + P.Y * P.Y);
end;

end.
