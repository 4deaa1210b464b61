//! The parser's synthetic unit: generated Delphi source in the shape of real code, for the
//! parser's throughput benchmark (`parser/benches/parse.rs`), its `synth` example (the unit on
//! stdout, for profiling) and its direct-path test.

use std::fmt::Write as _;

/// A unit with `classes` classes (fields, documented and attributed methods, properties) and
/// their method bodies: declarations and bodies in roughly the proportion of real code.
pub fn synthetic_unit(classes: usize) -> String {
    let mut s = String::from("unit Synthetic;\n\ninterface\n\nuses\n  System.SysUtils, System.Classes, System.Generics.Collections;\n\nconst\n  cPrefix = 'tool_';\n  cMax = 100;\n\ntype\n");
    for c in 0..classes {
        let _ = write!(
            s,
            "  /// <summary>Class number {c} &amp; friends.</summary>\n  [McpTool(cPrefix + 'c{c}')]\n  TClass{c} = class(TInterfacedObject, IInterface)\n  private\n    FName: string;\n    FValue: Integer;\n    FItems: TList<Integer>;\n    function GetValue: Integer;\n    procedure SetValue(const AValue: Integer);\n  public\n    constructor Create(const AName: string; AValue: Integer = 0); virtual;\n    destructor Destroy; override;\n    /// <summary>Adds two numbers.</summary>\n    /// <param name=\"A\">first</param>\n    /// <returns>the sum</returns>\n    [McpTool('add{c}', 'Adds numbers')]\n    function Add(A, B: Integer): Integer;\n    function Find(const Key: string; out Index: Integer): Boolean; overload;\n    procedure Process(const Items: array of string; var Count: Integer); stdcall;\n    property Name: string read FName write FName;\n    property Value: Integer read GetValue write SetValue default 0;\n  end;\n\n"
        );
    }
    s.push_str("implementation\n\n");
    for c in 0..classes {
        let _ = write!(
            s,
            "{{ TClass{c} }}\n\nconstructor TClass{c}.Create(const AName: string; AValue: Integer);\nbegin\n  inherited Create;\n  FName := AName;\n  FValue := AValue;\n  FItems := TList<Integer>.Create;\nend;\n\ndestructor TClass{c}.Destroy;\nbegin\n  FItems.Free;\n  inherited;\nend;\n\nfunction TClass{c}.GetValue: Integer;\nbegin\n  Result := FValue;\nend;\n\nprocedure TClass{c}.SetValue(const AValue: Integer);\nbegin\n  if AValue <> FValue then\n  begin\n    FValue := AValue; // changed\n    FItems.Add(AValue);\n  end;\nend;\n\nfunction TClass{c}.Add(A, B: Integer): Integer;\nbegin\n  Result := A + B;\nend;\n\nfunction TClass{c}.Find(const Key: string; out Index: Integer): Boolean;\nvar\n  I: Integer;\nbegin\n  Result := False;\n  for I := 0 to FItems.Count - 1 do\n    if IntToStr(FItems[I]) = Key then\n    begin\n      Index := I;\n      Exit(True);\n    end;\n  Index := -1;\nend;\n\nprocedure TClass{c}.Process(const Items: array of string; var Count: Integer);\nvar\n  S: string;\nbegin\n  Count := 0;\n  for S in Items do\n  begin\n    case Length(S) of\n      0: Continue;\n      1..5: Inc(Count);\n    else\n      try\n        Inc(Count, 2);\n      except\n        on E: Exception do\n          raise Exception.Create('failed: ' + E.Message);\n      end;\n    end;\n  end;\nend;\n\n"
        );
    }
    s.push_str("end.\n");
    s
}
