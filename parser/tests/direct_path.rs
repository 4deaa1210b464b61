//! The direct path (declarations read without pest, `src/direct/`) must build the
//! tree the grammar builds, with the same diagnostics: every fixture, the benchmark's synthetic
//! unit and a unit of shapes at the edges of what the direct path reads are parsed both ways.
//! (`tests/grammar_props.rs` does the same for random and mutated input.)

use delphi_mcp_test_support::synthetic::synthetic_unit;
use std::path::{Path, PathBuf};

mod support;
use support::assert_same;

fn pascal_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        if path.is_dir() {
            pascal_files(&path, out);
        } else if path.extension().is_some_and(|x| {
            ["pas", "dpr", "dpk", "lpr", "inc"].contains(&x.to_str().unwrap_or(""))
        }) {
            out.push(path);
        }
    }
}

#[test]
fn every_fixture_gives_the_grammars_tree() {
    let mut files = Vec::new();
    pascal_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures"),
        &mut files,
    );
    files.sort();
    assert!(files.len() > 20, "fixtures not found: {files:?}");
    for path in files {
        let bytes = std::fs::read(&path).expect("read fixture");
        assert_same(&path, &String::from_utf8_lossy(&bytes));
    }
}

#[test]
fn the_synthetic_unit_gives_the_grammars_tree() {
    assert_same(Path::new("Synthetic.pas"), &synthetic_unit(12));
}

/// Declarations the direct path reads, and near them shapes it must leave to the grammar
/// (arguments of directives and specifiers, `class var`, variant parts, generic types, ...).
const EDGES: &str = r#"unit DirectEdges;

interface

type
  /// <summary>Forward and plain.</summary>
  TFwd = class;
  TFwd2 = class(TObject);
  IFwd = interface;
  TColor = (Red, Green, &Blue, platform);
  TOne = (Single);
  TRange = (Low)..(High);
  TNumbers = 1..10;
  TAlias = System.Integer;
  TStr = String;
  TShort = string[20];
  TPtr = ^TRecord;
  TArr = array of string;
  TConsts = array of const;
  TFixed = array[0..3] of Byte;
  TList2 = TList<TPair<string, Integer>>;
  TCp = AnsiString(1252);
  [Attr1, Attr2('x', 2)] [Attr3]
  TAttributed = class abstract(TInterfacedObject, IInterface)
  strict private
    FName, FOther: string;
    /// <summary>Documented field.</summary>
    [FieldAttr] FValue: Integer;
    /// <summary>Second.</summary>
    [A, B] FPair1, FPair2: Int64;
  private
    Strict: Boolean;
    Read: Integer;
    function GetItem(Index: Integer): string;
  protected
    procedure DoIt; virtual; abstract;
    procedure Both; virtual abstract;
    procedure Handle(var Msg: TMessage); message WM_USER;
    function Over: Integer; overload; stdcall;
    function Over(const A: Integer = -1; B: Double = 1.5e3; C: Boolean = not True): Integer; overload;
    procedure NoSemi; overload
  public
    constructor Create(out constref: Integer; const out: string);
    class function Make: TAttributed; static;
    class procedure Reg;
    class var Counter: Integer;
    class property Count: Integer read Counter;
    property Name: string read FName write FName;
    property Items[Index: Integer]: string read GetItem; default;
    property Value: Integer read FValue write FValue default 0 stored False;
    property Other: string read FOther nodefault;
    property Deep: string read FOwner.FName;
    property Called: string read Get(1);
    property Hinted: Integer read FValue; deprecated;
    property Redeclared;
    property Idx: Integer index 3 read GetIdx;
    [McpTool('a' + 'b' + cX * 2 - 1, 'desc' + #13#10 + 'more')]
    procedure Tool(const S: string = 'x''y');
    [McpTool(Name = 'n')]
    procedure NamedArg;
    [Result: NotNull]
    function Targeted: TObject;
    procedure Called2(A: Integer = High(Integer));
    procedure Compare(A: Boolean = 1 < 2);
    function Resolved: Integer;
    function IFoo.Bar = Resolved;
    procedure Visible; public
    procedure AfterPublic;
    procedure WithAttrParam([Ref] const A: TRec);
    function GenericMethod<T>(const A: T): T;
    procedure Dotted.Name.Parts;
  published
    property Pub: Integer read FValue;
  end;

  TRec = record
    A, B: Integer;
    case Integer of
      0: (C: Byte);
  end;
  TRec2 = record
    X: Double;
    procedure Clear;
    class operator Add(const A, B: TRec2): TRec2;
  end align 8;
  TRec3 = packed record X: Byte; end;
  TRec4 = record
  end;
  TRec5 = record
    const Size = 4;
  end;
  IService = interface(IInterface)
    ['{11111111-2222-3333-4444-555555555555}']
    function Run(const Input: string): string;
  end;
  IBare = interface
    [SID_Bare]
    procedure X;
  end;
  IAttr = interface
    [McpTool('x')]
    procedure Y;
  end;
  IDisp = dispinterface
    ['{11111111-2222-3333-4444-555555555556}']
    procedure Z; dispid 1;
  end;
  TGen<T: class> = class(TObject)
    F: T;
  end;
  TSpecial = class(TList<Integer>.TEnumerator)
  end;
  TProcType = procedure(A: Integer) of object;
  TFunc = reference to function: Integer;
  THelper = class helper for TObject
  end;
  TDistinct = type Integer;
  THinted = class end deprecated 'use X';
  TMeta = class of TObject;
  TSealed = class sealed
    FA: Integer
  end;
  TLast = class
    procedure P; overload
  end;

procedure Plain;
function WithDefaults(A: Integer = 1 + 2 * 3; const B: string = 'a' + 'b'): Boolean; inline;
procedure Ext; external 'lib.dll' name 'ext';
procedure ExtPlain; external;
procedure Cdecl(A: PChar); cdecl; varargs;
function Dotted(A: System.SysUtils.TBytes; B: array of const): System.Integer; deprecated;
[Attr] procedure AttrProc;
procedure Fwd; forward;
procedure Lib; library;
procedure Pub; public name 'pub';
procedure Framework; external 'x' dependency 'c++';
procedure Params(A, B: Integer; var C; const D; out E: string; constref F: TRec);
procedure Trailing(A: Integer;);
procedure Empty();
function NoParens: Integer; cdecl deprecated;

implementation

procedure TAttributed.DoIt;
begin
end;

constructor TAttributed.Create(out constref: Integer; const out: string);
begin
end;

class function TAttributed.Make: TAttributed;
begin
  Result := nil;
end;

function TOuter.TInner.Method(A: Integer): Integer;
  procedure Nested(B: Integer);
  begin
  end;
begin
end;

function TGen<T>.Get: T;
begin
end;

procedure Plain;
var
  X: Integer;
begin
end;

end.
"#;

/// Constants, variables, uses clauses, generic and procedural types.
const SECTIONS: &str = r#"unit Sections.Edges platform;

interface

uses
  System.SysUtils, Vcl.Forms in 'Vcl.Forms.pas', Other,;

const
  /// <summary>Plain.</summary>
  cName = 'tool_';
  cMax = 100;
  cNeg = -1;
  cExpr = cMax * 2 + 1 - cNeg;
  cMask = $FF or %1010 and not 3;
  cReal = 1.5e3;
  cNil = nil;
  cDotted = System.MaxInt;
  cTyped: Integer = 5;
  cSet = [1, 2];
  cCall = SizeOf(Integer);
  cRel = cMax > 3;
  cHinted = 1 deprecated;
  cArr: array[0..1] of Integer = (1, 2);
  [Attr] cAttributed = 'a' + #13#10;
  cStr: string = 'x';
  cOld = 1 deprecated 'use cNew' platform;
  cShort: string[4] = 'abcd';

resourcestring
  sHello = 'Hello';

var
  GValue: Integer;
  GA, GB: string;
  GInit: Integer = 3;
  GAbs: Integer absolute GValue;
  GExt: Integer; external 'lib' name 'g';
  GCvar: Integer; cvar;
  Public: Integer;
  GHint: Integer platform;
  GAbs2: Integer absolute GValue platform;
  GInit2: Integer = 1 + 2 deprecated;
  GInit3: TPoint = (X: 1; Y: 2);

threadvar
  TValue: Int64;

type
  TList<T> = class(TObject)
    FItems: array of T;
    function Get<U>(const A: U): T;
  end;
  TDict<K, V: class, constructor; W: IComparable<W>> = class
  end;
  TPair<TKey,TValue> = record
    Key: TKey;
    Value: TValue;
  end;
  TPacked = packed record
    A: Byte;
  end;
  TPackedClass = packed class
  end;
  TPackedArr = packed array[0..1] of Byte;
  TBits = set of TColor;
  TChars = set of 'a'..'z';
  TNotify = procedure(Sender: TObject) of object;
  TSimple = procedure;
  TGetter = function(const Name: string; out Value: Integer): Boolean;
  TRef = reference to procedure(const A: Integer);
  TStd = procedure(A: Integer); stdcall;
  TStd2 = procedure(A: Integer) stdcall;
  TNested = procedure is nested;
  TFuncRes = function: TList<Integer>;
  TGenProc<T> = reference to function(const Arg: T): T;
  TObj = object(TParent)
    X: Integer;
    procedure Go; virtual;
  end;
  TPackedObj = packed object
  end;
  TStrHelper = record helper for string
    function Len: Integer;
  end;
  TClassHelper2 = class helper(TBaseHelper) for Vcl.TObject
    procedure Go;
  end;
  TTypeHelper = type helper for Integer
  end;
  TDistinctStr = type string;
  TDistinctHinted = type Integer platform;
  TMulti = array[0..1, Byte] of array of const;
  TConstArr = array[0..2] of const;
  TNestedConst = array of array of const;
  TNestedStatic = array of array[0..1] of Byte;
  TSub = -5..+5;
  TEnumSub = TColor.Red..TColor.Blue;
  TChr = #0..#31;
  TExpr = 1 + 2..10 * 3;
  TCalls = Low(Byte)..High(Byte);
  TRel = 1..2 = 3;
  TShortStr = string[10 + 1];
  TClassOf = class of TObj;
  TPackedOf = packed class of TObj;
  TWithHints = class end platform deprecated 'gone';
  TMessages = class
    procedure Msg(var M: TMessage); message WM_USER + 1;
    function D: Integer; dispid -1;
    procedure Del; external 'a' name 'b' delayed;
    procedure Args; deprecated 'x' + 'y';
    procedure Call; message Id(1);
    FHinted: Integer deprecated;
    function IFoo.Bar = DoBar;
    procedure IFoo.Baz = TOther.Baz;
  end;

function TList<T>.Get<U>(const A: U): T;
procedure Generic<T>(const A: T);
procedure Instantiated<T: record>(A: T);

implementation

function TList<T>.Get<U>(const A: U): T;
begin
end;

function IEnumerable<TPair<K, V>>.GetEnumerator: TEnumerator;
begin
end;

end.
"#;

/// Shapes of the forms the direct path reads since it follows the whole grammar: every
/// expression form, typed constants, member blocks, variant parts, properties with parameters
/// and defaults, attribute targets, directives without `;`, and near them the inputs where the
/// grammar backtracks or fails (a bracket closed by the other kind, an operator without an
/// operand, expressions nested past what lowering keeps).
const MORE: &str = r#"unit MoreEdges;

interface

const
  cRel = 1 < 2;
  cNe = A <> B;
  cNeSpaced = A < > B;
  cLe = A <= B;
  cGe = A >= B;
  cIn = X in [1, 2..5];
  cIs = A is TObject;
  cAt = @Foo;
  cAtAt = @@Foo;
  cCall = Max(1, 2) + Length('abc');
  cWidth = Format(X:10:2, Y);
  cIndex = Arr[1, 2];
  cDeref = P^;
  cDerefMember = P^.Field;
  cCallMember = Get().Name;
  cParen = (1 + 2) * 3;
  cNested = ((((((((((((1))))))))))));
  cDeepSet = [[[[[[[[[[[[1]]]]]]]]]]]];
  cInherited = inherited Foo;
  cNil = nil;
  cSet = [];
  cMixed = not A and B or C xor D shl 2 shr 1 div 3 mod 4 as T;
  cTyped: TPoint = (X: 1; Y: 2);
  cTable: array[0..2] of Byte = ($01, $02, $03);
  cEmpty: array of Integer = ();
  cNestedBlob: TRec = (A: (1, 2); B: [3]);
  cBadBlob: TRec = (A: 1];
  cBlobHint: TRec = (A: 1) deprecated;
  cExprThenBlob = 1 2;
  cDangling = 1 +;
  cDot = A.;
  cCallOpen = F(1, ;
  cStr = 'a' 'b';
  cHint = 5 platform;
  cEq = A = B = C;

type
  TEnumV = (evA = 1, evB := 2, evC);
  TEnum1 = (eOnly = 5);
  TSub1 = (1)..(2);
  TSub2 = (1) + 1..9;
  TSubCall = Low(Byte)..High(Byte);
  TSubBadCall = F(1, 2)..5;
  TCp2 = AnsiString(CP_UTF8);
  TCpBad = AnsiString(1, 2);
  TPackedSet = packed set of Byte;
  TPackedArr = packed array[0..1] of Byte;
  TBitArr = bitpacked array[0..7] of Boolean;
  TBitRec = bitpacked record A: Boolean; end;
  TPackedHelper = packed class helper for TObject end;
  TPackedOfClass = packed class of TObject;
  TFileOf = file of Integer;
  TFilePlain = file;
  TRecOf = array of record A: Integer; end;
  TProcCc = procedure(A: Integer); stdcall;
  TProcCc2 = procedure cdecl;
  TProcHint = procedure; deprecated;
  TProcHintStr = procedure; deprecated 'x';
  TProcNested = procedure is nested;
  TProcBoth = function(A: Integer): Integer of object; cdecl;
  TRefName = reference;
  TNbspName = Foo Bar;
  TFields = record
    OnInt: function(A: Integer): Integer; cdecl;
    OnPtr: procedure(P: Pointer); stdcall;
    Kind: (kA, kB);
    Sub: 0..7;
    Last: Integer
  end;
  TBlocks = class
  private
    class var FCount, FMax: Integer;
    [Weak] class var FOwner: TObject;
    class threadvar FLocal: Integer;
  public
    var FPlain: Integer;
    [VarAttr] FAttrField: string;
    const cA = 1; cB: Integer = 2;
    type TInner = (iA, iB); TInner2 = class end;
    procedure AfterBlocks;
  protected
    type TT = Integer;
    public: Integer;
    Operator: string;
    Generic: Integer;
    class operator Implicit(A: Integer): TBlocks;
    generic function G<T>: T;
    function Attributed: [Result: NotNull] TObject;
    property P1: Integer read F write F; default;
    property P2: Integer read F; deprecated; platform;
    property P3: Integer read F deprecated;
    property P4: Integer read F, G;
    property P5[A, B: Integer; const C: string]: Integer read GetP5;
    property P6: Integer index 1 + 2 read F;
    property P7: Integer read F default
    ;
    property P8: Integer read F
  end;
  TConstThenField = class
    const cC = 3;
    Field: Integer;
  end;
  TVar = record
    case Tag: Integer of
      0: (A: Integer);
      1: (B: record C: Byte; end);
      2: ();
  end;
  TVarBad = record
    case Integer of
      0: (A: Integer];
  end;
  TVarStray = record
    case Integer of 0: (A: Integer));
  end;
  TNoSemiField = record A: Integer end;
  TAligned2 = packed record A: Byte; end align 4;

procedure NoSemiDirective(A: Integer) stdcall;
function NoSemi2: Integer cdecl; overload;
procedure PublicName; public name 'pub_name';
procedure PublicOnly; public;
procedure AliasD; alias: 'aliased';
procedure Linker; external 'x' framework 'UIKit';
procedure Linker2; external 'x' dependency 'a', 'b';
procedure ExtName; external 'lib' name 'n' delayed;
procedure ParamAttrs([A] const [B] X: Integer; [out] const Y: Integer; [Ref] var Z: Integer);
procedure ModeNames(out: Integer; constref, var2: Integer);
procedure Widths(A: Integer = Round(X:2));
procedure DefaultCall(A: TProc = nil; B: Integer = SizeOf(Integer));
function ResultAttrs: [Attr] Integer;
procedure WithMessage; message 5 + 1;

exports
  NoSemiDirective,
  PublicName name 'pn' index 3;

label
  L1, 10;

implementation

end.
"#;

#[test]
fn edge_shapes_give_the_grammars_tree() {
    assert_same(Path::new("DirectEdges.pas"), EDGES);
    assert_same(Path::new("SectionEdges.pas"), SECTIONS);
    assert_same(Path::new("MoreEdges.pas"), MORE);
}

#[test]
fn unit_heads_give_the_grammars_tree() {
    for head in [
        "unit A;",
        "unit A.B.C;",
        "unit &Type.Name;",
        "unit A platform;",
        "unit A deprecated 'x';",
        "program P;",
        "program P(Input, Output);",
        "library L;",
        "package Pk;",
        "unit A in 'a.pas';",
        "unit A",
        "unit ;",
    ] {
        let text = format!("{head}\ninterface\nimplementation\nend.\n");
        assert_same(Path::new("Head.pas"), &text);
    }
}

#[test]
fn each_edge_shape_alone_gives_the_grammars_tree() {
    // One declaration at a time inside a minimal unit, so a disagreement names its line.
    for line in EDGES
        .lines()
        .chain(MORE.lines())
        .filter(|l| l.starts_with("  T") || l.starts_with("procedure"))
    {
        let text = format!("unit One;\ninterface\ntype\n  TBox = class\n{line}\n  end;\n{line}\nimplementation\nend.\n");
        assert_same(Path::new("One.pas"), &text);
    }
    for line in SECTIONS.lines().chain(MORE.lines()) {
        let section = match line.get(..3) {
            Some("  c") => "const",
            Some("  G") | Some("  P") => "var",
            _ => continue,
        };
        let text = format!("unit One;\ninterface\n{section}\n{line}\nimplementation\nend.\n");
        assert_same(Path::new("One.pas"), &text);
    }
}
