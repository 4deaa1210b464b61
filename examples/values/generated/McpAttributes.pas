(* McpAttributes: the attributes delphi-mcp reads (written by `delphi-mcp gen`; add it to your
  project, or copy it next to your units). delphi-mcp reads the attributes from the source text;
  the classes exist so that the annotated units compile under Delphi. Free Pascal 3.2 has no
  custom attributes: write them as {$IFNDEF FPC}[McpTool('name')]{$ENDIF}.

  [McpTool]                          tool named after the routine (snake_case)
  [McpTool('name')]                  explicit name
  [McpTool('name', 'description')]   explicit name and description
  [McpInstance('Resolver')]          on a class: the global function or variable that yields
  [McpInstance('Resolver', 'pre_')]  the live object for its instance tools; optional name prefix
  [McpNil]                           on a pointer/class/interface parameter: always passed nil,
  [McpNil('Param')]                  not in the schema (the second form goes on the routine)
  [McpTitle('Title')]                display title
  [McpReadOnly], [McpDestructive], [McpIdempotent], [McpOpenWorld]
                                     annotation hints (True), or with (False) to state the opposite *)
unit McpAttributes;

{$IFDEF FPC}
  {$MODE DELPHIUNICODE}
{$ENDIF}

interface

{$IFDEF FPC}
type
  { Free Pascal 3.2 has no TCustomAttribute; this stand-in lets the unit compile there. }
  TCustomAttribute = class(TObject)
  end;
{$ENDIF}

type
  McpToolAttribute = class(TCustomAttribute)
  private
    FName: string;
    FDescription: string;
  public
    constructor Create; overload;
    constructor Create(const AName: string); overload;
    constructor Create(const AName, ADescription: string); overload;
    property Name: string read FName;
    property Description: string read FDescription;
  end;

  McpInstanceAttribute = class(TCustomAttribute)
  private
    FResolver: string;
    FPrefix: string;
  public
    constructor Create(const AResolver: string); overload;
    constructor Create(const AResolver, APrefix: string); overload;
    property Resolver: string read FResolver;
    property Prefix: string read FPrefix;
  end;

  McpNilAttribute = class(TCustomAttribute)
  private
    FParam: string;
  public
    constructor Create; overload;
    constructor Create(const AParam: string); overload;
    property Param: string read FParam;
  end;

  McpTitleAttribute = class(TCustomAttribute)
  private
    FTitle: string;
  public
    constructor Create(const ATitle: string);
    property Title: string read FTitle;
  end;

  { Base of the Boolean annotation hints. }
  McpHintAttribute = class(TCustomAttribute)
  private
    FValue: Boolean;
  public
    constructor Create; overload;
    constructor Create(AValue: Boolean); overload;
    property Value: Boolean read FValue;
  end;

  McpReadOnlyAttribute = class(McpHintAttribute);
  McpDestructiveAttribute = class(McpHintAttribute);
  McpIdempotentAttribute = class(McpHintAttribute);
  McpOpenWorldAttribute = class(McpHintAttribute);

implementation

constructor McpToolAttribute.Create;
begin
  inherited Create;
end;

constructor McpToolAttribute.Create(const AName: string);
begin
  inherited Create;
  FName := AName;
end;

constructor McpToolAttribute.Create(const AName, ADescription: string);
begin
  inherited Create;
  FName := AName;
  FDescription := ADescription;
end;

constructor McpInstanceAttribute.Create(const AResolver: string);
begin
  inherited Create;
  FResolver := AResolver;
end;

constructor McpInstanceAttribute.Create(const AResolver, APrefix: string);
begin
  inherited Create;
  FResolver := AResolver;
  FPrefix := APrefix;
end;

constructor McpNilAttribute.Create;
begin
  inherited Create;
end;

constructor McpNilAttribute.Create(const AParam: string);
begin
  inherited Create;
  FParam := AParam;
end;

constructor McpTitleAttribute.Create(const ATitle: string);
begin
  inherited Create;
  FTitle := ATitle;
end;

constructor McpHintAttribute.Create;
begin
  inherited Create;
  FValue := True;
end;

constructor McpHintAttribute.Create(AValue: Boolean);
begin
  inherited Create;
  FValue := AValue;
end;

end.
