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
                                     annotation hints (True), or with (False) to state the opposite
  [McpResource('uri', 'name', 'description', 'mime/type')]
                                     a function without arguments returning string or TBytes
  [McpResourceTemplate('scheme://{id}', 'name', 'description', 'mime/type')]
                                     the same with one string parameter per {variable}
  [McpPrompt('name', 'description')] a function of string arguments returning string or
                                     TMcpContent / TMcpContents (one user message each)
  [McpCompletion('prompt_or_template', 'argument')]
                                     a function (const Value: string) returning the suggestions
                                     (TArray<string>, array of string or TStrings)

  Besides the attributes, this unit has what tool code uses at run time (add it to the uses
  clause of units that use them, also under Free Pascal): TMcpContext (a parameter of that type
  gets the call context: progress, logging to the client, cancellation, asking the user),
  EMcpToolError (its message reaches the client verbatim), and the content records a tool,
  resource or prompt may return instead of a plain value: TMcpImage, TMcpAudio, TMcpContent,
  TMcpContents. *)
unit McpAttributes;

{$IFDEF FPC}
  {$MODE DELPHIUNICODE}
{$ENDIF}

interface

uses
  {$IFDEF FPC}SysUtils{$ELSE}System.SysUtils{$ENDIF};

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

  { [McpResource], [McpResourceTemplate], [McpPrompt], [McpCompletion] and the other attributes
    with string arguments only. }
  McpStringsAttribute = class(TCustomAttribute)
  private
    FArgs: array of string;
  public
    constructor Create; overload;
    constructor Create(const A: string); overload;
    constructor Create(const A, B: string); overload;
    constructor Create(const A, B, C: string); overload;
    constructor Create(const A, B, C, D: string); overload;
  end;

  McpResourceAttribute = class(McpStringsAttribute);
  McpResourceTemplateAttribute = class(McpStringsAttribute);
  McpPromptAttribute = class(McpStringsAttribute);
  McpCompletionAttribute = class(McpStringsAttribute);
  McpNameAttribute = class(McpStringsAttribute);
  McpNamingAttribute = class(McpStringsAttribute);
  McpInputSchemaAttribute = class(McpStringsAttribute);
  McpSchemaFileAttribute = class(McpStringsAttribute);

  { A tool error meant for the client: its message is sent verbatim (other exceptions are sent
    as 'EClass: message', or hidden by `serve --hide-exceptions`). }
  EMcpToolError = class(Exception);

  { Raised by TMcpContext when, in protocol 2026-07-28, the client must answer a question
    first: let it pass (the server sends the question and runs the tool again with the
    answer). }
  EMcpInputRequired = class(EMcpToolError);

  { What a content block is (TMcpContent.Kind). }
  TMcpContentKind = (mckText, mckImage, mckAudio, mckResourceLink, mckResource);

  { One content block of a tool result or prompt message. Which fields count depends on Kind:
      mckText          Text
      mckImage         Data, MimeType
      mckAudio         Data, MimeType
      mckResourceLink  Uri, Name, MimeType, Text (the description)
      mckResource      Uri, MimeType, and Text (a text resource) or Data (a binary one) }
  TMcpContent = record
    Kind: TMcpContentKind;
    Text: string;
    Data: TBytes;
    MimeType: string;
    Uri: string;
    Name: string;
  end;

  { Several content blocks, sent in order. }
  TMcpContents = array of TMcpContent;

  { An image result: one image block. }
  TMcpImage = record
    Data: TBytes;
    MimeType: string;
  end;

  { An audio result: one audio block. }
  TMcpAudio = record
    Data: TBytes;
    MimeType: string;
  end;

  { Log levels of notifications/message (RFC 5424 severities). }
  TMcpLogLevel = (mllDebug, mllInfo, mllNotice, mllWarning, mllError, mllCritical, mllAlert,
    mllEmergency);

  { What the user did with an elicitation. }
  TMcpElicitAction = (meaAccept, meaDecline, meaCancel);

  { The call context as the runtime passes it (ABI 3, docs/abi.md); use TMcpContext. }
  TMcpProgressFunc = function(Handle: NativeUInt; Done, Total: Double; Msg: PAnsiChar;
    MsgLen: NativeInt): Int32; cdecl;
  TMcpLogFunc = function(Handle: NativeUInt; Level: Int32; Msg: PAnsiChar;
    MsgLen: NativeInt): Int32; cdecl;
  TMcpCancelledFunc = function(Handle: NativeUInt): Int32; cdecl;
  TMcpRequestFunc = function(Handle: NativeUInt; Kind: Int32; Params: PAnsiChar;
    ParamsLen: NativeInt; out Answer: PAnsiChar; out AnswerLen: NativeInt): Int32; cdecl;
  TMcpFreeProc = procedure(P: Pointer); cdecl;
  TMcpResourceUpdatedFunc = function(Handle: NativeUInt; Uri: PAnsiChar;
    UriLen: NativeInt): Int32; cdecl;
  TMcpAbiContext = record
    Size: Int32;
    Flags: Int32;
    Handle: NativeUInt;
    Progress: TMcpProgressFunc;
    Log: TMcpLogFunc;
    Cancelled: TMcpCancelledFunc;
    Request: TMcpRequestFunc;
    Free: TMcpFreeProc;
    ResourceUpdated: TMcpResourceUpdatedFunc;
  end;
  PMcpAbiContext = ^TMcpAbiContext;

  { The call context of one tool call: declare a parameter of this type (any name; it is not
    an argument of the tool's schema) and the stub passes it. Use it on the calling thread,
    during the call only; the stub frees it when the routine returns. }
  TMcpContext = class
  private
    FAbi: PMcpAbiContext;
    FBatch: Integer;
    FUnanswered: Boolean;
    function Ask(Kind: Int32; const Params: string; out Answer: string): Int32;
  public
    constructor Create(AAbi: Pointer);
    { notifications/progress for the client's progress token (nothing is sent when the
      client gave none). Total <= 0: unknown. }
    procedure Progress(Done: Double; Total: Double = 0; const Msg: string = '');
    { notifications/message to the client at Level (when at or above the client's
      logging/setLevel), and the server's log. }
    procedure Log(Level: TMcpLogLevel; const Msg: string);
    { True once the client cancelled the call (or its deadline passed): stop and return. }
    function Cancelled: Boolean;
    { Asks the user (elicitation/create). RequestedSchema: the JSON Schema of the answer
      object (flat, primitive properties). Content: the answer's JSON text when accepted.
      Raises EMcpToolError when the client cannot be asked. In protocol 2026-07-28 the
      question goes out as an input-required result and the call waits for the client's
      retry; Key names it there (default: the method and the question's number). }
    function Elicit(const Msg, RequestedSchema: string; out Content: string;
      const Key: string = ''): TMcpElicitAction;
    { Asks the client's model (sampling/createMessage) with one user message; returns the
      reply's text. Raises EMcpToolError when the client cannot be asked. }
    function Sample(const Prompt: string; MaxTokens: Integer = 100; const Key: string = ''): string;
    { The client's roots (roots/list) as the JSON text of their array. }
    function ListRoots(const Key: string = ''): string;
    { The resource Uri changed: clients subscribed to it (resources/subscribe) are told. }
    procedure ResourceUpdated(const Uri: string);
    { Questions (Elicit, Sample, ListRoots) between BeginQuestions and EndQuestions go out
      together: in protocol 2026-07-28 an unanswered one returns an empty answer (meaCancel
      for Elicit) instead of ending the call, and EndQuestions raises EMcpInputRequired when
      any was unanswered, so the client gets all of them in one round. Elsewhere each question
      is asked as it comes. }
    procedure BeginQuestions;
    procedure EndQuestions;
  end;

{ Content blocks. }
function McpText(const Text: string): TMcpContent;
function McpImage(const Data: TBytes; const MimeType: string): TMcpContent;
function McpAudio(const Data: TBytes; const MimeType: string): TMcpContent;
function McpResourceLink(const Uri, Name, MimeType: string; const Description: string = ''): TMcpContent;
function McpEmbeddedText(const Uri, Text, MimeType: string): TMcpContent;
function McpEmbeddedBlob(const Uri: string; const Data: TBytes; const MimeType: string): TMcpContent;
{ A JSON string literal of S (quotes, backslashes and control characters escaped). }
function McpJsonString(const S: string): string;

implementation

const
  { TMcpAbiContext request kinds and statuses (docs/abi.md). }
  __McpAskElicit = 1;
  __McpAskSample = 2;
  __McpAskRoots = 3;
  __McpCtxOk = 0;
  __McpCtxDeclined = 5;
  __McpCtxCancelled = 6;
  __McpCtxInputRequired = 7;

function __McpUtf8(const S: string): RawByteString;
begin
  Result := UTF8Encode(S);
end;

function __McpFromUtf8(P: PAnsiChar; Len: NativeInt): string;
var
  R: RawByteString;
begin
  SetLength(R, Len);
  if Len > 0 then
    Move(P^, R[1], Len);
  {$IFDEF FPC}
  Result := UTF8Decode(R);
  {$ELSE}
  Result := UTF8ToString(R);
  {$ENDIF}
end;

constructor McpStringsAttribute.Create;
begin
  inherited Create;
end;

constructor McpStringsAttribute.Create(const A: string);
begin
  inherited Create;
  SetLength(FArgs, 1);
  FArgs[0] := A;
end;

constructor McpStringsAttribute.Create(const A, B: string);
begin
  inherited Create;
  SetLength(FArgs, 2);
  FArgs[0] := A;
  FArgs[1] := B;
end;

constructor McpStringsAttribute.Create(const A, B, C: string);
begin
  inherited Create;
  SetLength(FArgs, 3);
  FArgs[0] := A;
  FArgs[1] := B;
  FArgs[2] := C;
end;

constructor McpStringsAttribute.Create(const A, B, C, D: string);
begin
  inherited Create;
  SetLength(FArgs, 4);
  FArgs[0] := A;
  FArgs[1] := B;
  FArgs[2] := C;
  FArgs[3] := D;
end;

constructor TMcpContext.Create(AAbi: Pointer);
begin
  inherited Create;
  FAbi := PMcpAbiContext(AAbi);
end;

procedure TMcpContext.Progress(Done: Double; Total: Double; const Msg: string);
var
  M: RawByteString;
begin
  if FAbi = nil then
    Exit;
  M := __McpUtf8(Msg);
  FAbi^.Progress(FAbi^.Handle, Done, Total, PAnsiChar(M), Length(M));
end;

procedure TMcpContext.Log(Level: TMcpLogLevel; const Msg: string);
var
  M: RawByteString;
begin
  if FAbi = nil then
    Exit;
  M := __McpUtf8(Msg);
  FAbi^.Log(FAbi^.Handle, Ord(Level), PAnsiChar(M), Length(M));
end;

procedure TMcpContext.ResourceUpdated(const Uri: string);
var
  U: RawByteString;
begin
  if (FAbi = nil) or (FAbi^.Size < SizeOf(TMcpAbiContext)) then
    Exit;
  U := __McpUtf8(Uri);
  FAbi^.ResourceUpdated(FAbi^.Handle, PAnsiChar(U), Length(U));
end;

function TMcpContext.Cancelled: Boolean;
begin
  Result := (FAbi <> nil) and (FAbi^.Cancelled(FAbi^.Handle) <> 0);
end;

function TMcpContext.Ask(Kind: Int32; const Params: string; out Answer: string): Int32;
var
  P: RawByteString;
  A: PAnsiChar;
  L: NativeInt;
begin
  Answer := '';
  if FAbi = nil then
    raise EMcpToolError.Create('no call context');
  P := __McpUtf8(Params);
  A := nil;
  L := 0;
  Result := FAbi^.Request(FAbi^.Handle, Kind, PAnsiChar(P), Length(P), A, L);
  if A <> nil then
  begin
    try
      Answer := __McpFromUtf8(A, L);
    finally
      FAbi^.Free(A);
    end;
  end;
  if Result = __McpCtxInputRequired then
  begin
    if FBatch = 0 then
      raise EMcpInputRequired.Create(Answer);
    FUnanswered := True;
    Answer := '';
  end;
end;

procedure TMcpContext.BeginQuestions;
begin
  Inc(FBatch);
end;

procedure TMcpContext.EndQuestions;
begin
  if FBatch > 0 then
    Dec(FBatch);
  if (FBatch = 0) and FUnanswered then
  begin
    FUnanswered := False;
    raise EMcpInputRequired.Create('input required: the questions asked together');
  end;
end;

{ The inputKey member of a request's params (docs/abi.md), when Key is given. }
function __McpKeyMember(const Key: string): string;
begin
  if Key = '' then
    Result := ''
  else
    Result := ',"inputKey":' + McpJsonString(Key);
end;

function TMcpContext.Elicit(const Msg, RequestedSchema: string; out Content: string;
  const Key: string): TMcpElicitAction;
var
  Status: Int32;
begin
  Status := Ask(__McpAskElicit, '{"message":' + McpJsonString(Msg) + ',"requestedSchema":' +
    RequestedSchema + __McpKeyMember(Key) + '}', Content);
  case Status of
    __McpCtxOk: Result := meaAccept;
    __McpCtxDeclined: Result := meaDecline;
    __McpCtxCancelled, __McpCtxInputRequired: Result := meaCancel;
  else
    raise EMcpToolError.Create(Content);
  end;
end;

function TMcpContext.Sample(const Prompt: string; MaxTokens: Integer; const Key: string): string;
begin
  if Ask(__McpAskSample, '{"messages":[{"role":"user","content":{"type":"text","text":' +
    McpJsonString(Prompt) + '}}],"maxTokens":' + IntToStr(MaxTokens) + __McpKeyMember(Key) + '}',
    Result) in [__McpCtxOk, __McpCtxInputRequired] then
    Exit;
  raise EMcpToolError.Create(Result);
end;

function TMcpContext.ListRoots(const Key: string): string;
var
  Params: string;
begin
  if Key = '' then
    Params := '{}'
  else
    Params := '{"inputKey":' + McpJsonString(Key) + '}';
  if not (Ask(__McpAskRoots, Params, Result) in [__McpCtxOk, __McpCtxInputRequired]) then
    raise EMcpToolError.Create(Result);
end;

function McpText(const Text: string): TMcpContent;
begin
  Result := Default(TMcpContent);
  Result.Kind := mckText;
  Result.Text := Text;
end;

function McpImage(const Data: TBytes; const MimeType: string): TMcpContent;
begin
  Result := Default(TMcpContent);
  Result.Kind := mckImage;
  Result.Data := Data;
  Result.MimeType := MimeType;
end;

function McpAudio(const Data: TBytes; const MimeType: string): TMcpContent;
begin
  Result := McpImage(Data, MimeType);
  Result.Kind := mckAudio;
end;

function McpResourceLink(const Uri, Name, MimeType: string; const Description: string): TMcpContent;
begin
  Result := Default(TMcpContent);
  Result.Kind := mckResourceLink;
  Result.Uri := Uri;
  Result.Name := Name;
  Result.MimeType := MimeType;
  Result.Text := Description;
end;

function McpEmbeddedText(const Uri, Text, MimeType: string): TMcpContent;
begin
  Result := Default(TMcpContent);
  Result.Kind := mckResource;
  Result.Uri := Uri;
  Result.Text := Text;
  Result.MimeType := MimeType;
end;

function McpEmbeddedBlob(const Uri: string; const Data: TBytes; const MimeType: string): TMcpContent;
begin
  Result := Default(TMcpContent);
  Result.Kind := mckResource;
  Result.Uri := Uri;
  Result.Data := Data;
  Result.MimeType := MimeType;
end;

function McpJsonString(const S: string): string;
const
  Hex: array[0..15] of Char = ('0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', 'c',
    'd', 'e', 'f');
var
  I: Integer;
  C: Char;
begin
  Result := '"';
  for I := 1 to Length(S) do
  begin
    C := S[I];
    case C of
      '"': Result := Result + '\"';
      '\': Result := Result + '\\';
      #0..#31: Result := Result + '\u00' + Hex[Ord(C) shr 4] + Hex[Ord(C) and 15];
    else
      Result := Result + C;
    end;
  end;
  Result := Result + '"';
end;

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
