unit VarParam;

interface

/// <summary>Swaps nothing.</summary>
[McpTool]
procedure Increment(var Counter: Integer);

implementation

procedure Increment(var Counter: Integer);
begin
  Inc(Counter);
end;

end.
