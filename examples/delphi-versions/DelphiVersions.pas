unit DelphiVersions;

(* The server of "How to Write an MCP Server in Delphi" as a plain unit: the two tools are
   ordinary functions, and delphi-mcp writes the protocol side. Errors are exceptions; they reach
   the client as tool results with isError. *)

{$IFDEF FPC}
  {$MODE DELPHIUNICODE}
{$ENDIF}

interface

uses
  SysUtils{$IFDEF MSWINDOWS}, Classes, Registry, Windows{$ENDIF}{$IFNDEF FPC}, McpAttributes{$ENDIF};

/// <summary>Looks up a Delphi release from its name, product version, BDS registry version,
/// VERxxx conditional define or CompilerVersion, and returns all four.</summary>
/// <param name="Query">For example: Athens, 12, 23.0, VER360 or 36</param>
{$IFNDEF FPC}[McpTool('delphi_version')]{$ENDIF}
{$IFNDEF FPC}[McpReadOnly]{$ENDIF}
function DelphiVersion({$IFNDEF FPC}[McpName('query')]{$ENDIF} Query: string): string;

/// <summary>Lists the Delphi / RAD Studio versions installed on this computer, with their
/// folders.</summary>
{$IFNDEF FPC}[McpTool('installed_delphi_versions')]{$ENDIF}
{$IFNDEF FPC}[McpReadOnly]{$ENDIF}
function InstalledDelphiVersions: string;

implementation

type
  TDelphiRelease = record
    Name: string;
    Product: string;
    BDS: string;
    Define: string;
    Compiler: string;
  end;

const
  Releases: array[0..15] of TDelphiRelease = (
    (Name: 'Delphi XE';            Product: 'XE';   BDS: '8.0';  Define: 'VER220'; Compiler: '22.0'),
    (Name: 'Delphi XE2';           Product: 'XE2';  BDS: '9.0';  Define: 'VER230'; Compiler: '23.0'),
    (Name: 'Delphi XE3';           Product: 'XE3';  BDS: '10.0'; Define: 'VER240'; Compiler: '24.0'),
    (Name: 'Delphi XE4';           Product: 'XE4';  BDS: '11.0'; Define: 'VER250'; Compiler: '25.0'),
    (Name: 'Delphi XE5';           Product: 'XE5';  BDS: '12.0'; Define: 'VER260'; Compiler: '26.0'),
    (Name: 'Delphi XE6';           Product: 'XE6';  BDS: '14.0'; Define: 'VER270'; Compiler: '27.0'),
    (Name: 'Delphi XE7';           Product: 'XE7';  BDS: '15.0'; Define: 'VER280'; Compiler: '28.0'),
    (Name: 'Delphi XE8';           Product: 'XE8';  BDS: '16.0'; Define: 'VER290'; Compiler: '29.0'),
    (Name: 'Delphi 10 Seattle';    Product: '10';   BDS: '17.0'; Define: 'VER300'; Compiler: '30.0'),
    (Name: 'Delphi 10.1 Berlin';   Product: '10.1'; BDS: '18.0'; Define: 'VER310'; Compiler: '31.0'),
    (Name: 'Delphi 10.2 Tokyo';    Product: '10.2'; BDS: '19.0'; Define: 'VER320'; Compiler: '32.0'),
    (Name: 'Delphi 10.3 Rio';      Product: '10.3'; BDS: '20.0'; Define: 'VER330'; Compiler: '33.0'),
    (Name: 'Delphi 10.4 Sydney';   Product: '10.4'; BDS: '21.0'; Define: 'VER340'; Compiler: '34.0'),
    (Name: 'Delphi 11 Alexandria'; Product: '11';   BDS: '22.0'; Define: 'VER350'; Compiler: '35.0'),
    (Name: 'Delphi 12 Athens';     Product: '12';   BDS: '23.0'; Define: 'VER360'; Compiler: '36.0'),
    (Name: 'Delphi 13 Florence';   Product: '13';   BDS: '37.0'; Define: 'VER370'; Compiler: '37.0'));

function Describe(const Release: TDelphiRelease): string;
begin
  Result := Release.Name + ': BDS ' + Release.BDS + ', ' + Release.Define +
    ', CompilerVersion ' + Release.Compiler;
end;

function DelphiVersion(Query: string): string;
var
  Upper: string;
  I: Integer;
begin
  Upper := UpperCase(Trim(Query));
  if Upper = '' then
    raise EArgumentException.Create('Give a release name or version number.');
  Result := '';
  for I := Low(Releases) to High(Releases) do
    if (Pos(Upper, UpperCase(Releases[I].Name)) > 0) or
       (Releases[I].Product = Upper) or
       (Releases[I].BDS = Upper) or
       (Releases[I].Define = Upper) or
       (Releases[I].Compiler = Upper) or
       (Releases[I].Compiler = Upper + '.0') then
    begin
      if Result <> '' then
        Result := Result + sLineBreak;
      Result := Result + Describe(Releases[I]);
    end;
  if Result = '' then
    raise EArgumentException.Create('No Delphi release matches "' + Trim(Query) + '".');
end;

function DescribeInstallation(const Key, Root: string): string;
var
  I: Integer;
begin
  Result := 'BDS ' + Key + ' at ' + Root;
  for I := Low(Releases) to High(Releases) do
    if Releases[I].BDS = Key then
      Result := Result + ' - ' + Describe(Releases[I]);
end;

{$IFDEF MSWINDOWS}
function InstalledDelphiVersions: string;
var
  Registry: TRegistry;
  Keys: TStringList;
  I: Integer;
  Root: string;
begin
  Result := '';
  Keys := TStringList.Create;
  Registry := TRegistry.Create(KEY_READ or KEY_WOW64_32KEY);
  try
    Registry.RootKey := HKEY_LOCAL_MACHINE;
    if Registry.OpenKeyReadOnly('SOFTWARE\Embarcadero\BDS') then
    begin
      Registry.GetKeyNames(Keys);
      Registry.CloseKey;
    end;
    for I := 0 to Keys.Count - 1 do
      if Registry.OpenKeyReadOnly('SOFTWARE\Embarcadero\BDS\' + Keys[I]) then
      begin
        Root := Registry.ReadString('RootDir');
        Registry.CloseKey;
        if Root <> '' then
        begin
          if Result <> '' then
            Result := Result + sLineBreak;
          Result := Result + DescribeInstallation(Keys[I], Root);
        end;
      end;
  finally
    Registry.Free;
    Keys.Free;
  end;
  if Result = '' then
    Result := 'No Delphi installations found.';
end;
{$ELSE}
{ Without a registry: the BDS environment variable that RAD Studio's rsvars script sets
  (e.g. BDS=/opt/Embarcadero/Studio/23.0) names one installation. }
function InstalledDelphiVersions: string;
var
  Root, Key: string;
begin
  Root := GetEnvironmentVariable('BDS');
  if Root = '' then
    Exit('No Delphi installations found (no registry here, and BDS is not set).');
  Key := ExtractFileName(ExcludeTrailingPathDelimiter(Root));
  Result := DescribeInstallation(Key, Root);
end;
{$ENDIF}

end.
