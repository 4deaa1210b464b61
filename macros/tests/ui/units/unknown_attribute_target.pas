unit UnknownTarget;

interface

/// <summary>Greets.</summary>
[McpTool]
[McpNil('Sender')]
function Greet(Name: string): string;

implementation

function Greet(Name: string): string;
begin
  Result := 'Hello ' + Name;
end;

end.
