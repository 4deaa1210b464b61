unit SyntaxError;

interface

/// <summary>Broken.</summary>
[McpTool]
function Broken(A: Integer): Integer
function Next: Integer;

implementation

function Broken(A: Integer): Integer;
begin
  Result := A;
end;

end.
