unit RecordParam;

interface

type
  TPoint = record
    case Polar: Boolean of
      False: (X, Y: Integer);
      True: (R, Phi: Double);
  end;

/// <summary>Length of a point.</summary>
[McpTool]
function Norm(P: TPoint): Double;

implementation

function Norm(P: TPoint): Double;
begin
  Result := P.R;
end;

end.
