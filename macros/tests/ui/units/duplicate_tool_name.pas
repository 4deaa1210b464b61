unit DuplicateName;

interface

/// <summary>Adds.</summary>
[McpTool('add')]
function AddInts(A, B: Integer): Integer;
/// <summary>Adds too.</summary>
[McpTool('add')]
function AddFloats(A, B: Double): Double;

implementation

function AddInts(A, B: Integer): Integer;
begin
  Result := A + B;
end;

function AddFloats(A, B: Double): Double;
begin
  Result := A + B;
end;

end.
