{ The conformance suite's reference server ("everything"), written as a Delphi unit that
  delphi-mcp serves: named tools with text, image, audio, embedded-resource and mixed
  results, progress and log notifications, sampling and elicitation through the call context,
  resources, a resource template, prompts and completions.
  Free Pascal 3.2 has no attributes: they are written inside IFNDEF FPC, where delphi-mcp reads
  them (it reads units for the Delphi target). }
unit EverythingTools;

{$IFDEF FPC}{$MODE DELPHIUNICODE}{$ENDIF}

interface

uses
  {$IFDEF FPC}SysUtils{$ELSE}System.SysUtils{$ENDIF},
  McpAttributes;

type
  { The statuses of ticket_summary's argument (completed with these members). }
  TTicketStatus = (active, inactive, pending);

  TEverything = class
  public
    /// <summary>Returns a plain text result.</summary>
    {$IFNDEF FPC}[McpTool('test_simple_text')]{$ENDIF}
    class function SimpleText: string; static;

    /// <summary>Returns a 1x1 red PNG image.</summary>
    {$IFNDEF FPC}[McpTool('test_image_content')]{$ENDIF}
    class function ImageContent: TMcpImage; static;

    /// <summary>Returns a short silent WAV.</summary>
    {$IFNDEF FPC}[McpTool('test_audio_content')]{$ENDIF}
    class function AudioContent: TMcpAudio; static;

    /// <summary>Returns an embedded text resource.</summary>
    {$IFNDEF FPC}[McpTool('test_embedded_resource')]{$ENDIF}
    class function EmbeddedResource: TMcpContent; static;

    /// <summary>Returns text, an image and an embedded resource.</summary>
    {$IFNDEF FPC}[McpTool('test_multiple_content_types')]{$ENDIF}
    class function MultipleContentTypes: TMcpContents; static;

    /// <summary>Sends three log messages while it runs.</summary>
    {$IFNDEF FPC}[McpTool('test_tool_with_logging')]{$ENDIF}
    class function ToolWithLogging(Ctx: TMcpContext): string; static;

    /// <summary>Reports progress three times (0, 50 and 100 of 100).</summary>
    {$IFNDEF FPC}[McpTool('test_tool_with_progress')]{$ENDIF}
    class function ToolWithProgress(Ctx: TMcpContext): string; static;

    /// <summary>Always fails with a tool error.</summary>
    {$IFNDEF FPC}[McpTool('test_error_handling')]{$ENDIF}
    class function ErrorHandling: string; static;

    /// <summary>Fails with an exception whose message is not meant for clients.</summary>
    {$IFNDEF FPC}[McpTool('test_internal_error')]{$ENDIF}
    class function InternalError: string; static;

    /// <summary>Asks the client's model to answer a prompt.</summary>
    /// <param name="prompt">The prompt sent for sampling.</param>
    {$IFNDEF FPC}[McpTool('test_sampling')]{$ENDIF}
    class function Sampling(Ctx: TMcpContext; const prompt: string): string; static;

    /// <summary>Asks the user for a username and an e-mail address.</summary>
    /// <param name="message">The message shown to the user.</param>
    {$IFNDEF FPC}[McpTool('test_elicitation')]{$ENDIF}
    class function Elicitation(Ctx: TMcpContext; const message: string): string; static;

    /// <summary>Asks the user with defaults for every primitive type.</summary>
    {$IFNDEF FPC}[McpTool('test_elicitation_sep1034_defaults')]{$ENDIF}
    class function ElicitationDefaults(Ctx: TMcpContext): string; static;

    /// <summary>Asks the user with all five kinds of enumeration.</summary>
    {$IFNDEF FPC}[McpTool('test_elicitation_sep1330_enums')]{$ENDIF}
    class function ElicitationEnums(Ctx: TMcpContext): string; static;

    /// <summary>Counts up to Steps, reporting progress, and stops when cancelled.</summary>
    /// <param name="Steps">How many steps of 10 ms.</param>
    {$IFNDEF FPC}[McpTool('count_with_progress')]{$ENDIF}
    class function CountWithProgress(Ctx: TMcpContext; Steps: Integer): Integer; static;

    /// <summary>Asks for the user's name (input-required result in 2026-07-28).</summary>
    {$IFNDEF FPC}[McpTool('test_input_required_result_elicitation')]{$ENDIF}
    class function InputElicitation(Ctx: TMcpContext): string; static;

    /// <summary>Asks the client's model a question.</summary>
    {$IFNDEF FPC}[McpTool('test_input_required_result_sampling')]{$ENDIF}
    class function InputSampling(Ctx: TMcpContext): string; static;

    /// <summary>Lists the client's roots.</summary>
    {$IFNDEF FPC}[McpTool('test_input_required_result_list_roots')]{$ENDIF}
    class function InputListRoots(Ctx: TMcpContext): string; static;

    /// <summary>Asks for a confirmation; the server keeps the call's state.</summary>
    {$IFNDEF FPC}[McpTool('test_input_required_result_request_state')]{$ENDIF}
    class function InputRequestState(Ctx: TMcpContext): string; static;

    /// <summary>Asks for a confirmation; a changed requestState is refused.</summary>
    {$IFNDEF FPC}[McpTool('test_input_required_result_tampered_state')]{$ENDIF}
    class function InputTamperedState(Ctx: TMcpContext): string; static;

    /// <summary>Asks two questions, one per round.</summary>
    {$IFNDEF FPC}[McpTool('test_input_required_result_multi_round')]{$ENDIF}
    class function InputMultiRound(Ctx: TMcpContext): string; static;

    /// <summary>Asks three questions in one round: a name, a greeting, the roots.</summary>
    {$IFNDEF FPC}[McpTool('test_input_required_result_multiple_inputs')]{$ENDIF}
    class function InputMultipleInputs(Ctx: TMcpContext): string; static;

    /// <summary>Asks with elicitation if the client has it, else with sampling.</summary>
    {$IFNDEF FPC}[McpTool('test_input_required_result_capabilities')]{$ENDIF}
    class function InputCapabilities(Ctx: TMcpContext): string; static;

    /// <summary>A prompt that asks the user for its context first.</summary>
    {$IFNDEF FPC}[McpPrompt('test_input_required_result_prompt')]{$ENDIF}
    class function InputPrompt(Ctx: TMcpContext): string; static;

    /// <summary>Changes test://watched-resource and tells its subscribers.</summary>
    /// <param name="Text">The resource's new text.</param>
    {$IFNDEF FPC}[McpTool('update_watched_resource')]{$ENDIF}
    class procedure UpdateWatchedResource(Ctx: TMcpContext; const Text: string); static;

    /// <summary>Static text.</summary>
    {$IFNDEF FPC}[McpResource('test://static-text', 'static-text', 'A static text resource', 'text/plain')]{$ENDIF}
    class function StaticText: string; static;

    /// <summary>Static bytes.</summary>
    {$IFNDEF FPC}[McpResource('test://static-binary', 'static-binary', 'A static binary resource', 'image/png')]{$ENDIF}
    class function StaticBinary: TBytes; static;

    /// <summary>A resource that may change.</summary>
    {$IFNDEF FPC}[McpResource('test://watched-resource', 'watched-resource', 'A resource clients may subscribe to', 'text/plain')]{$ENDIF}
    class function WatchedResource: string; static;

    /// <summary>Data of one item.</summary>
    {$IFNDEF FPC}[McpResourceTemplate('test://template/{id}/data', 'template-data', 'Data of the item id', 'application/json')]{$ENDIF}
    class function TemplateData(const id: string): string; static;

    /// <summary>A prompt without arguments.</summary>
    {$IFNDEF FPC}[McpPrompt('test_simple_prompt')]{$ENDIF}
    class function SimplePrompt: string; static;

    /// <summary>A prompt with two arguments.</summary>
    /// <param name="arg1">First argument.</param>
    /// <param name="arg2">Second argument.</param>
    {$IFNDEF FPC}[McpPrompt('test_prompt_with_arguments')]{$ENDIF}
    class function PromptWithArguments(const arg1, arg2: string): string; static;

    /// <summary>A prompt embedding a resource.</summary>
    /// <param name="resourceUri">The URI of the resource embedded.</param>
    {$IFNDEF FPC}[McpPrompt('test_prompt_with_embedded_resource')]{$ENDIF}
    class function PromptWithEmbeddedResource(const resourceUri: string): TMcpContents; static;

    /// <summary>A prompt with an image.</summary>
    {$IFNDEF FPC}[McpPrompt('test_prompt_with_image')]{$ENDIF}
    class function PromptWithImage: TMcpContents; static;

    /// <summary>A prompt whose argument is an enumeration (completed with its members).</summary>
    /// <param name="status">The ticket status.</param>
    {$IFNDEF FPC}[McpPrompt('ticket_summary')]{$ENDIF}
    class function TicketSummary(status: TTicketStatus): string; static;

    /// <summary>Completes arg1 of test_prompt_with_arguments.</summary>
    {$IFNDEF FPC}[McpCompletion('test_prompt_with_arguments', 'arg1')]{$ENDIF}
    class function CompleteArg1(const Value: string): TArray<string>; static;
  end;

implementation

const
  PngPixel: array[0..69] of Byte = (
    $89, $50, $4E, $47, $0D, $0A, $1A, $0A, $00, $00, $00, $0D, $49, $48, $44, $52,
    $00, $00, $00, $01, $00, $00, $00, $01, $08, $06, $00, $00, $00, $1F, $15, $C4,
    $89, $00, $00, $00, $0D, $49, $44, $41, $54, $78, $DA, $63, $FC, $CF, $C0, $F0,
    $1F, $00, $05, $05, $02, $00, $5F, $C8, $F1, $D2, $00, $00, $00, $00, $49, $45,
    $4E, $44, $AE, $42, $60, $82);
  WavSilence: array[0..51] of Byte = (
    $52, $49, $46, $46, $2C, $00, $00, $00, $57, $41, $56, $45, $66, $6D, $74, $20,
    $10, $00, $00, $00, $01, $00, $01, $00, $40, $1F, $00, $00, $40, $1F, $00, $00,
    $01, $00, $08, $00, $64, $61, $74, $61, $08, $00, $00, $00, $80, $80, $80, $80,
    $80, $80, $80, $80);

function Bytes(const Data: array of Byte): TBytes;
begin
  SetLength(Result, Length(Data));
  if Length(Data) > 0 then
    Move(Data[0], Result[0], Length(Data));
end;

class function TEverything.SimpleText: string;
begin
  Result := 'This is a simple text response for testing.';
end;

class function TEverything.ImageContent: TMcpImage;
begin
  Result.Data := Bytes(PngPixel);
  Result.MimeType := 'image/png';
end;

class function TEverything.AudioContent: TMcpAudio;
begin
  Result.Data := Bytes(WavSilence);
  Result.MimeType := 'audio/wav';
end;

class function TEverything.EmbeddedResource: TMcpContent;
begin
  Result := McpEmbeddedText('test://embedded-resource', 'This is an embedded resource content.',
    'text/plain');
end;

class function TEverything.MultipleContentTypes: TMcpContents;
begin
  SetLength(Result, 3);
  Result[0] := McpText('Multiple content types test:');
  Result[1] := McpImage(Bytes(PngPixel), 'image/png');
  Result[2] := McpEmbeddedText('test://mixed-content-resource', '{"test":"data","value":123}',
    'application/json');
end;

class function TEverything.ToolWithLogging(Ctx: TMcpContext): string;
begin
  Ctx.Log(mllInfo, 'Tool execution started');
  Sleep(50);
  Ctx.Log(mllInfo, 'Tool processing data');
  Sleep(50);
  Ctx.Log(mllInfo, 'Tool execution completed');
  Result := 'Tool with logging executed successfully';
end;

class function TEverything.ToolWithProgress(Ctx: TMcpContext): string;
begin
  Ctx.Progress(0, 100);
  Sleep(50);
  Ctx.Progress(50, 100);
  Sleep(50);
  Ctx.Progress(100, 100);
  Result := 'Progress test completed';
end;

class function TEverything.ErrorHandling: string;
begin
  raise EMcpToolError.Create('This tool intentionally returns an error for testing');
end;

class function TEverything.InternalError: string;
begin
  raise EConvertError.Create('secret detail: the connection string is db://admin@prod');
end;

class function TEverything.Sampling(Ctx: TMcpContext; const prompt: string): string;
begin
  Result := 'LLM response: ' + Ctx.Sample(prompt, 100);
end;

class function TEverything.Elicitation(Ctx: TMcpContext; const message: string): string;
var
  Content: string;
  Action: TMcpElicitAction;
begin
  Action := Ctx.Elicit(message,
    '{"type":"object","properties":{"username":{"type":"string","description":"Your username"},' +
    '"email":{"type":"string","description":"Your email address"}},"required":["username","email"]}',
    Content);
  case Action of
    meaAccept: Result := 'User response: action=accept, content=' + Content;
    meaDecline: Result := 'User response: action=decline';
  else
    Result := 'User response: action=cancel';
  end;
end;

function Outcome(Action: TMcpElicitAction; const Content: string): string;
const
  Names: array[TMcpElicitAction] of string = ('accept', 'decline', 'cancel');
begin
  Result := 'Elicitation completed: action=' + Names[Action] + ', content=' + Content;
end;

class function TEverything.ElicitationDefaults(Ctx: TMcpContext): string;
var
  Content: string;
begin
  Result := Outcome(Ctx.Elicit('Please review and update the form fields with defaults',
    '{"type":"object","properties":{' +
    '"name":{"type":"string","description":"User name","default":"John Doe"},' +
    '"age":{"type":"integer","description":"User age","default":30},' +
    '"score":{"type":"number","description":"User score","default":95.5},' +
    '"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},' +
    '"verified":{"type":"boolean","description":"Verification status","default":true}}}',
    Content), Content);
end;

class function TEverything.ElicitationEnums(Ctx: TMcpContext): string;
var
  Content: string;
begin
  Result := Outcome(Ctx.Elicit('Please select options from the enum fields',
    '{"type":"object","properties":{' +
    '"untitledSingle":{"type":"string","description":"Select one option","enum":["option1","option2","option3"]},' +
    '"titledSingle":{"type":"string","description":"Select one option with titles","oneOf":[' +
    '{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},' +
    '"legacyEnum":{"type":"string","description":"Select one option (legacy)","enum":["opt1","opt2","opt3"],' +
    '"enumNames":["Option One","Option Two","Option Three"]},' +
    '"untitledMulti":{"type":"array","description":"Select multiple options","minItems":1,"maxItems":3,' +
    '"items":{"type":"string","enum":["option1","option2","option3"]}},' +
    '"titledMulti":{"type":"array","description":"Select multiple options with titles","minItems":1,"maxItems":3,' +
    '"items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},' +
    '{"const":"value3","title":"Third Choice"}]}}}}',
    Content), Content);
end;

class function TEverything.CountWithProgress(Ctx: TMcpContext; Steps: Integer): Integer;
var
  I: Integer;
begin
  Result := 0;
  for I := 1 to Steps do
  begin
    if Ctx.Cancelled then
      Exit;
    Sleep(10);
    Result := I;
    Ctx.Progress(I, Steps, 'step ' + IntToStr(I));
  end;
end;

{ The string member Name of a flat JSON object's text (enough for the answers asked for here;
  a real library would use System.JSON or fpjson). }
function Member(const Json, Name: string): string;
var
  At, Stop: Integer;
begin
  Result := '';
  At := Pos('"' + Name + '":"', Json);
  if At = 0 then
    Exit;
  At := At + Length(Name) + 4;
  Stop := At;
  while (Stop <= Length(Json)) and (Json[Stop] <> '"') do
    Inc(Stop);
  Result := Copy(Json, At, Stop - At);
end;

const
  NameSchema = '{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}';
  ConfirmSchema = '{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}';

class function TEverything.InputElicitation(Ctx: TMcpContext): string;
var
  Content: string;
begin
  if Ctx.Elicit('What is your name?', NameSchema, Content, 'user_name') <> meaAccept then
    Exit('No name given.');
  Result := 'Hello, ' + Member(Content, 'name') + '!';
end;

class function TEverything.InputSampling(Ctx: TMcpContext): string;
begin
  Result := 'The model says: ' + Ctx.Sample('What is the capital of France?', 100,
    'capital_question');
end;

class function TEverything.InputListRoots(Ctx: TMcpContext): string;
begin
  Result := 'Roots: ' + Ctx.ListRoots('client_roots');
end;

class function TEverything.InputRequestState(Ctx: TMcpContext): string;
var
  Content: string;
begin
  Ctx.Elicit('Please confirm', ConfirmSchema, Content, 'confirm');
  Result := 'state-ok: confirmed ' + Content;
end;

class function TEverything.InputTamperedState(Ctx: TMcpContext): string;
begin
  Result := InputRequestState(Ctx);
end;

class function TEverything.InputMultiRound(Ctx: TMcpContext): string;
var
  Name, Color: string;
begin
  Ctx.Elicit('Step 1: What is your name?', NameSchema, Name, 'step1');
  Ctx.Elicit('Step 2: What is your favorite color?',
    '{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}', Color,
    'step2');
  Result := 'Hello ' + Member(Name, 'name') + ', your favorite color is ' +
    Member(Color, 'color') + '.';
end;

class function TEverything.InputMultipleInputs(Ctx: TMcpContext): string;
var
  Name, Greeting, Roots: string;
begin
  Ctx.BeginQuestions;
  Ctx.Elicit('What is your name?', NameSchema, Name, 'user_name');
  Greeting := Ctx.Sample('Generate a greeting', 50, 'greeting');
  Roots := Ctx.ListRoots('client_roots');
  Ctx.EndQuestions;
  Result := Greeting + ', ' + Member(Name, 'name') + '! Roots: ' + Roots;
end;

class function TEverything.InputCapabilities(Ctx: TMcpContext): string;
var
  Content: string;
begin
  try
    Ctx.Elicit('What is your name?', NameSchema, Content, 'user_name');
    Result := 'Hello, ' + Member(Content, 'name') + '!';
  except
    on EMcpInputRequired do
      raise;
    on EMcpToolError do
      Result := 'The model says: ' + Ctx.Sample('Say hello.', 50, 'greeting');
  end;
end;

class function TEverything.InputPrompt(Ctx: TMcpContext): string;
var
  Content: string;
begin
  Ctx.Elicit('What context should the prompt use?',
    '{"type":"object","properties":{"context":{"type":"string"}},"required":["context"]}',
    Content, 'user_context');
  Result := 'Answer with this context in mind: ' + Member(Content, 'context');
end;

class function TEverything.StaticText: string;
begin
  Result := 'This is the content of the static text resource.';
end;

class function TEverything.StaticBinary: TBytes;
begin
  Result := Bytes(PngPixel);
end;

var
  Watched: string = 'Watched resource content';

class procedure TEverything.UpdateWatchedResource(Ctx: TMcpContext; const Text: string);
begin
  Watched := Text;
  Ctx.ResourceUpdated('test://watched-resource');
end;

class function TEverything.WatchedResource: string;
begin
  Result := Watched;
end;

class function TEverything.TemplateData(const id: string): string;
begin
  Result := '{"id":"' + id + '","templateTest":true,"data":"Data for ID: ' + id + '"}';
end;

class function TEverything.SimplePrompt: string;
begin
  Result := 'This is a simple prompt for testing.';
end;

class function TEverything.PromptWithArguments(const arg1, arg2: string): string;
begin
  Result := 'Prompt with arguments: arg1=''' + arg1 + ''', arg2=''' + arg2 + '''';
end;

class function TEverything.PromptWithEmbeddedResource(const resourceUri: string): TMcpContents;
begin
  SetLength(Result, 2);
  Result[0] := McpEmbeddedText(resourceUri, 'Embedded resource content for testing.', 'text/plain');
  Result[1] := McpText('Please process the embedded resource above.');
end;

class function TEverything.PromptWithImage: TMcpContents;
begin
  SetLength(Result, 2);
  Result[0] := McpImage(Bytes(PngPixel), 'image/png');
  Result[1] := McpText('Please analyze the image above.');
end;

class function TEverything.TicketSummary(status: TTicketStatus): string;
const
  Names: array[TTicketStatus] of string = ('active', 'inactive', 'pending');
begin
  Result := 'Summarise the tickets whose status is ' + Names[status] + '.';
end;

class function TEverything.CompleteArg1(const Value: string): TArray<string>;
const
  Words: array[0..3] of string = ('paris', 'park', 'parse', 'test');
var
  I, N: Integer;
begin
  SetLength(Result, Length(Words));
  N := 0;
  for I := 0 to High(Words) do
    if Copy(Words[I], 1, Length(Value)) = Value then
    begin
      Result[N] := Words[I];
      Inc(N);
    end;
  SetLength(Result, N);
end;

end.
