unit VarParam;

interface

/// <summary>Swaps nothing.</summary>
[McpTool]
[McpNil('Counter')]
procedure Increment(var Counter: TObject);

implementation

procedure Increment(var Counter: TObject);
begin
  Counter := nil;
end;

end.
