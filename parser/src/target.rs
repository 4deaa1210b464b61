//! Compiler targets: the symbols and constants a compiler predefines for a platform.
//!
//! A target is named `COMPILER-PLATFORM`: `delphi12-win64` (the default), `delphi11-linux64`,
//! `fpc-linux64`, ... ([`known_targets`] lists them all). The preprocessor takes from it the
//! symbols `{$IFDEF}` sees, the constants `{$IF}` compares (`CompilerVersion`, `RTLVersion`,
//! `FPC_FULLVERSION`, ...), the sizes `SizeOf(...)` returns and whether a type `Declared()`.
//!
//! The symbol lists follow Embarcadero's table of predefined conditionals for each compiler
//! version and platform, and for Free Pascal 3.2.2 what `fpc -va` reports (only the symbols
//! that source code tests in practice; the many `FPC_HAS_FEATURE_*` ones are left out except
//! those listed).

use std::fmt;

/// The compiler family of a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Compiler {
    /// Embarcadero Delphi (dcc32, dcc64, dcclinux64, ...).
    Delphi,
    /// Free Pascal.
    Fpc,
}

/// A value a compiler predefines as a constant usable in `{$IF}`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ConstValue {
    /// An integer (`FPC_FULLVERSION`, `FPC_VERSION`).
    Int(i64),
    /// A real (`CompilerVersion = 36.0`).
    Real(f64),
    /// A boolean (`RTLVersion111 = True`).
    Bool(bool),
}

/// One compiler target.
#[derive(Debug, Clone, PartialEq)]
pub struct Target {
    /// Name as given to `--target`, e.g. `delphi12-win64`.
    pub name: String,
    /// Compiler family.
    pub compiler: Compiler,
    /// Predefined conditional symbols, upper case.
    pub symbols: Vec<&'static str>,
    /// Predefined constants (name as written in the RTL) and their values.
    pub constants: Vec<(&'static str, ConstValue)>,
    /// Size of a pointer in bytes (4 or 8).
    pub pointer_size: u32,
    /// Size of `LongInt`/`LongWord` in bytes (8 on Delphi's 64-bit POSIX platforms).
    pub long_size: u32,
    /// Size of `Extended` in bytes (10 on x86 except Delphi Win64, 16 on Delphi 64-bit POSIX, else 8).
    pub extended_size: u32,
    /// Size of `Char` in bytes (2 for Delphi, 1 for Free Pascal outside `{$MODE DELPHIUNICODE}`).
    pub char_size: u32,
}

/// A `--target` name that is not in the table.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown target `{name}`; known targets: {}", known_targets().join(", "))]
pub struct UnknownTarget {
    /// The name asked for.
    pub name: String,
}

/// The target used when none is given.
pub const DEFAULT_TARGET: &str = "delphi12-win64";

/// A Delphi compiler version: target-name prefix, `VERxxx`, `CompilerVersion`.
struct DelphiVersion {
    prefix: &'static str,
    ver: u32,
    /// Platforms this version can compile for.
    platforms: &'static [Platform],
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Platform {
    Win32,
    Win64,
    Linux64,
    Osx64,
    OsxArm64,
    Android32,
    Android64,
    IosArm64,
}

use Platform::*;

impl Platform {
    fn suffix(self) -> &'static str {
        match self {
            Win32 => "win32",
            Win64 => "win64",
            Linux64 => "linux64",
            Osx64 => "osx64",
            OsxArm64 => "osxarm64",
            Android32 => "android32",
            Android64 => "android64",
            IosArm64 => "iosarm64",
        }
    }

    fn is_64(self) -> bool {
        !matches!(self, Win32 | Android32)
    }
}

const DELPHI_10_0: &[Platform] = &[Win32, Win64, Android32, IosArm64];
const DELPHI_10_2: &[Platform] = &[Win32, Win64, Linux64, Android32, IosArm64];
const DELPHI_10_3: &[Platform] = &[Win32, Win64, Linux64, Osx64, Android32, IosArm64];
const DELPHI_10_4: &[Platform] = &[Win32, Win64, Linux64, Osx64, Android32, Android64, IosArm64];
const DELPHI_11: &[Platform] = &[
    Win32, Win64, Linux64, Osx64, OsxArm64, Android32, Android64, IosArm64,
];

const DELPHI_VERSIONS: &[DelphiVersion] = &[
    DelphiVersion {
        prefix: "delphi10",
        ver: 300,
        platforms: DELPHI_10_0,
    },
    DelphiVersion {
        prefix: "delphi10.1",
        ver: 310,
        platforms: DELPHI_10_0,
    },
    DelphiVersion {
        prefix: "delphi10.2",
        ver: 320,
        platforms: DELPHI_10_2,
    },
    DelphiVersion {
        prefix: "delphi10.3",
        ver: 330,
        platforms: DELPHI_10_3,
    },
    DelphiVersion {
        prefix: "delphi10.4",
        ver: 340,
        platforms: DELPHI_10_4,
    },
    DelphiVersion {
        prefix: "delphi11",
        ver: 350,
        platforms: DELPHI_11,
    },
    DelphiVersion {
        prefix: "delphi12",
        ver: 360,
        platforms: DELPHI_11,
    },
    DelphiVersion {
        prefix: "delphi13",
        ver: 370,
        platforms: DELPHI_11,
    },
];

/// Free Pascal targets: name suffix and platform.
const FPC_PLATFORMS: &[Platform] = &[Linux64, Win64, Win32, Osx64, OsxArm64];

/// Every target name, in a stable order (Delphi versions oldest first, then Free Pascal).
pub fn known_targets() -> Vec<String> {
    let mut names = Vec::new();
    for version in DELPHI_VERSIONS {
        for platform in version.platforms {
            names.push(format!("{}-{}", version.prefix, platform.suffix()));
        }
    }
    for platform in FPC_PLATFORMS {
        names.push(format!("fpc-{}", platform.suffix()));
    }
    names
}

/// The target called `name` (case-insensitive).
pub fn lookup(name: &str) -> Result<Target, UnknownTarget> {
    let lower = name.trim().to_ascii_lowercase();
    let unknown = || UnknownTarget {
        name: name.to_string(),
    };
    let (prefix, suffix) = lower.rsplit_once('-').ok_or_else(unknown)?;
    if prefix == "fpc" {
        let platform = *FPC_PLATFORMS
            .iter()
            .find(|p| p.suffix() == suffix)
            .ok_or_else(unknown)?;
        return Ok(fpc_target(lower.clone(), platform));
    }
    let version = DELPHI_VERSIONS
        .iter()
        .find(|v| v.prefix == prefix)
        .ok_or_else(unknown)?;
    let platform = *version
        .platforms
        .iter()
        .find(|p| p.suffix() == suffix)
        .ok_or_else(unknown)?;
    Ok(delphi_target(lower.clone(), version, platform))
}

impl Default for Target {
    fn default() -> Self {
        // The default name is in the table; the fallback only guards against a broken table.
        lookup(DEFAULT_TARGET).unwrap_or_else(|_| {
            delphi_target(DEFAULT_TARGET.to_string(), &DELPHI_VERSIONS[6], Win64)
        })
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

fn delphi_target(name: String, version: &DelphiVersion, platform: Platform) -> Target {
    let mut symbols: Vec<&'static str> = vec![
        "DCC",
        "CONDITIONALEXPRESSIONS",
        "NATIVECODE",
        "UNICODE",
        ver_symbol(version.ver),
    ];
    let posix64 = matches!(platform, Linux64 | Osx64 | OsxArm64 | Android64 | IosArm64);
    let os: &[&'static str] = match platform {
        Win32 => &["MSWINDOWS", "WIN32", "CPU386", "CPUX86", "ASSEMBLER"],
        Win64 => &["MSWINDOWS", "WIN64", "CPUX64", "ASSEMBLER"],
        Linux64 => &["LINUX", "LINUX64", "POSIX", "POSIX64", "CPUX64", "PIC"],
        Osx64 => &[
            "MACOS", "MACOS64", "OSX", "OSX64", "POSIX", "POSIX64", "CPUX64", "PIC",
        ],
        OsxArm64 => &[
            "MACOS", "MACOS64", "OSX", "OSX64", "POSIX", "POSIX64", "CPUARM", "CPUARM64", "PIC",
        ],
        Android32 => &[
            "ANDROID",
            "ANDROID32",
            "POSIX",
            "POSIX32",
            "CPUARM",
            "CPUARM32",
            "PIC",
        ],
        Android64 => &[
            "ANDROID",
            "ANDROID64",
            "POSIX",
            "POSIX64",
            "CPUARM",
            "CPUARM64",
            "PIC",
        ],
        IosArm64 => &[
            "MACOS", "MACOS64", "IOS", "IOS64", "POSIX", "POSIX64", "CPUARM", "CPUARM64", "PIC",
        ],
    };
    symbols.extend_from_slice(os);
    symbols.push(if platform.is_64() {
        "CPU64BITS"
    } else {
        "CPU32BITS"
    });
    if !matches!(platform, Win32 | Win64) {
        // The LLVM-based compilers.
        symbols.extend_from_slice(&["EXTERNALLINKER", "WEAKREF"]);
    }
    let mobile_arc = matches!(platform, Android32 | IosArm64) && version.ver < 340;
    if mobile_arc || (platform == Linux64 && version.ver < 340) {
        // Automatic reference counting of objects, dropped in 10.4.
        symbols.push("AUTOREFCOUNT");
    }
    if mobile_arc {
        symbols.extend_from_slice(&["NEXTGEN", "WEAKINSTREF"]);
    }
    let compiler_version = f64::from(version.ver) / 10.0;
    let mut constants = vec![
        ("CompilerVersion", ConstValue::Real(compiler_version)),
        ("RTLVersion", ConstValue::Real(compiler_version)),
        // FireMonkey's version number trails the compiler version by 7 since XE2 (16.0).
        (
            "FireMonkeyVersion",
            ConstValue::Real(compiler_version - 7.0),
        ),
    ];
    // RTLVersionNNN booleans mark update releases (11.1, 11.2, 11.3, 12.1, ...).
    for (ver, names) in [
        (
            350,
            &["RTLVersion111", "RTLVersion112", "RTLVersion113"][..],
        ),
        (
            360,
            &["RTLVersion121", "RTLVersion122", "RTLVersion123"][..],
        ),
    ] {
        if version.ver >= ver {
            for name in names {
                constants.push((name, ConstValue::Bool(true)));
            }
        }
    }
    Target {
        name,
        compiler: Compiler::Delphi,
        symbols,
        constants,
        pointer_size: if platform.is_64() { 8 } else { 4 },
        long_size: if posix64 { 8 } else { 4 },
        extended_size: match platform {
            Win32 => 10,
            Linux64 | Osx64 => 16,
            _ => 8,
        },
        char_size: 2,
    }
}

fn ver_symbol(ver: u32) -> &'static str {
    match ver {
        300 => "VER300",
        310 => "VER310",
        320 => "VER320",
        330 => "VER330",
        340 => "VER340",
        350 => "VER350",
        360 => "VER360",
        _ => "VER370",
    }
}

fn fpc_target(name: String, platform: Platform) -> Target {
    let mut symbols: Vec<&'static str> = vec![
        "FPC",
        "VER3",
        "VER3_2",
        "VER3_2_2",
        "FPC_HAS_UNICODESTRING",
        "FPC_HAS_CPSTRING",
        "FPC_HAS_CONSTREF",
        "FPC_HAS_OPERATOR_ENUMERATOR",
        "FPC_HAS_TYPE_SINGLE",
        "FPC_HAS_TYPE_DOUBLE",
        "ENDIAN_LITTLE",
        "FPC_LITTLE_ENDIAN",
        // Free Pascal's version macros are also defined symbols (`{$IFDEF FPC_FULLVERSION}`).
        "FPC_FULLVERSION",
        "FPC_VERSION",
        "FPC_RELEASE",
        "FPC_PATCH",
    ];
    let os: &[&'static str] = match platform {
        Linux64 => &["LINUX", "UNIX", "HASUNIX"],
        Win64 => &["WINDOWS", "MSWINDOWS", "WIN64"],
        Win32 => &["WINDOWS", "MSWINDOWS", "WIN32"],
        Osx64 | OsxArm64 => &["DARWIN", "BSD", "UNIX", "HASUNIX"],
        _ => &[],
    };
    symbols.extend_from_slice(os);
    let cpu: &[&'static str] = match platform {
        Win32 => &[
            "CPUI386",
            "CPU386",
            "CPU32",
            "CPUX86",
            "FPC_HAS_TYPE_EXTENDED",
        ],
        OsxArm64 => &["CPUAARCH64", "CPU64", "CPUARM64"],
        Win64 => &["CPUX86_64", "CPUAMD64", "CPU64", "CPUX64"],
        _ => &[
            "CPUX86_64",
            "CPUAMD64",
            "CPU64",
            "CPUX64",
            "FPC_HAS_TYPE_EXTENDED",
        ],
    };
    symbols.extend_from_slice(cpu);
    let extended_size = if symbols.contains(&"FPC_HAS_TYPE_EXTENDED") {
        10
    } else {
        8
    };
    Target {
        name,
        compiler: Compiler::Fpc,
        symbols,
        constants: vec![
            ("FPC_FULLVERSION", ConstValue::Int(30202)),
            ("FPC_VERSION", ConstValue::Int(3)),
            ("FPC_RELEASE", ConstValue::Int(2)),
            ("FPC_PATCH", ConstValue::Int(2)),
        ],
        pointer_size: if platform.is_64() { 8 } else { 4 },
        long_size: 4,
        extended_size,
        char_size: 1,
    }
}

impl Target {
    /// True when `symbol` (any case) is predefined.
    pub fn defines(&self, symbol: &str) -> bool {
        self.symbols.iter().any(|s| s.eq_ignore_ascii_case(symbol))
    }

    /// The predefined constant `name` (any case).
    pub fn constant(&self, name: &str) -> Option<ConstValue> {
        self.constants
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|&(_, v)| v)
    }

    /// `SizeOf` of a predeclared type (any case), `None` for types it does not know.
    pub fn size_of(&self, type_name: &str) -> Option<u32> {
        let p = self.pointer_size;
        let size = match type_name.to_ascii_lowercase().as_str() {
            "byte" | "shortint" | "boolean" | "bytebool" | "ansichar" | "int8" | "uint8" => 1,
            "word" | "smallint" | "wordbool" | "widechar" | "int16" | "uint16" => 2,
            "integer" | "cardinal" | "longbool" | "single" | "int32" | "uint32" | "fixedint"
            | "fixeduint" | "ucs4char" => 4,
            "int64" | "uint64" | "double" | "currency" | "comp" | "real" => 8,
            "longint" | "longword" => self.long_size,
            "extended" => self.extended_size,
            "char" => self.char_size,
            "pointer" | "nativeint" | "nativeuint" | "string" | "ansistring" | "unicodestring"
            | "widestring" | "rawbytestring" | "utf8string" | "pchar" | "pansichar"
            | "pwidechar" | "tobject" | "iinterface" | "iunknown" | "tclass" | "intptr"
            | "uintptr" | "sizeint" | "sizeuint" | "ptrint" | "ptruint" | "tbytes" => p,
            "variant" | "olevariant" => {
                if p == 8 {
                    24
                } else {
                    16
                }
            }
            _ => return None,
        };
        Some(size)
    }
}

/// Names the RTL declares (in `System`, `SysUtils`, `Classes`) in both modern Delphi and Free
/// Pascal 3.2, which `{$IF Declared(...)}` treats as declared. The preprocessor has no symbol table, so
/// this short list plus the names declared earlier in the file is all `Declared()` knows.
pub const WELL_KNOWN_DECLARED: &[&str] = &[
    "AnsiChar",
    "AnsiString",
    "Boolean",
    "Byte",
    "Cardinal",
    "Char",
    "Currency",
    "Double",
    "Exception",
    "Extended",
    "Int64",
    "Integer",
    "IInterface",
    "IUnknown",
    "LongInt",
    "NativeInt",
    "NativeUInt",
    "PAnsiChar",
    "PByte",
    "PChar",
    "Pointer",
    "PWideChar",
    "RawByteString",
    "Single",
    "SmallInt",
    "String",
    "TArray",
    "TBytes",
    "TClass",
    "TComponent",
    "TDateTime",
    "TEncoding",
    "TFormatSettings",
    "TGUID",
    "TInterfacedObject",
    "TList",
    "TMemoryStream",
    "TObject",
    "TPersistent",
    "TStream",
    "TStringBuilder",
    "TStringList",
    "TStrings",
    "TThread",
    "UInt64",
    "UnicodeString",
    "UTF8String",
    "Variant",
    "WideChar",
    "WideString",
    "Word",
];
