//! Parts shared by measured and imported results: who ran, where, and the
//! notices a run leaves behind.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::values::{Message, Name, Slug};

/// The provider that sells or hosts the runner.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Provider {
    /// Stable id, e.g. `ubicloud`.
    pub id: Slug,
    /// Display name, e.g. `Ubicloud`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<Name>,
}

/// The runner, as the provider labels it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Runner {
    /// Runner label, e.g. `ubicloud-linux-x64`.
    pub label: Slug,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<Name>,
}

/// Operating system family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Os {
    /// Linux.
    Linux,
    /// macOS.
    Macos,
    /// Windows.
    Windows,
}

impl Os {
    /// Every OS, in the order of the schema's enum.
    pub const ALL: [Os; 3] = [Os::Linux, Os::Macos, Os::Windows];

    /// The OS's name as result files write it (`linux`, `macos`,
    /// `windows`): the one place the names are spelled, which the derived
    /// serde form agrees with (a test below compares them).
    pub fn name(self) -> &'static str {
        match self {
            Os::Linux => "linux",
            Os::Macos => "macos",
            Os::Windows => "windows",
        }
    }

    /// The OS a name (as `name` gives it) names.
    pub fn from_name(name: &str) -> Option<Os> {
        Os::ALL.into_iter().find(|os| os.name() == name)
    }

    /// Whether the published protocol pins this OS's measuring thread.
    pub fn pins(self) -> bool {
        !matches!(self, Os::Macos)
    }
}

impl std::fmt::Display for Os {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The architecture label the reports use for a binary.
pub fn arch_label(arch: &str) -> String {
    match arch {
        "x64" | "arm64" => format!("{arch} (64-bit)"),
        "x86" | "arm" => format!("{arch} (32-bit)"),
        other => other.to_string(),
    }
}

// Written as `{"mode": "pinned", "cpu": N, "group": N}` or `{"mode":
// "unpinned"}` (serde's internally tagged form, which the schema
// describes); read by hand (below). (Not a doc comment: the schema's
// description is the line below.)
/// CPU affinity in force while something was measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(tag = "mode", rename_all = "lowercase", deny_unknown_fields)]
pub enum Affinity {
    /// Hard affinity to one logical CPU.
    Pinned {
        /// Logical CPU number within its processor group.
        cpu: u32,
        /// Processor group (always 0 outside Windows).
        group: u32,
    },
    /// The thread may migrate between CPUs (macOS).
    Unpinned,
}

/// Read as one plain object, not through serde's internally tagged enum,
/// which buffers each object before it reads the tag: a check of 10,000
/// results reads 220,000 affinities, which took 4.5 % of its CPU time that
/// way and 2.9 % this way (docs/benchmarks.md). It also lost the error's
/// position (line 0, column 0) and let `cpu` and `group` pass on an
/// unpinned affinity, where they mean nothing.
impl<'de> Deserialize<'de> for Affinity {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // Named as the type it reads in messages ("expected struct Affinity").
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields, expecting = "struct Affinity")]
        struct Fields {
            mode: Mode,
            #[serde(default, deserialize_with = "present")]
            cpu: Option<u32>,
            #[serde(default, deserialize_with = "present")]
            group: Option<u32>,
        }
        /// A field that is there holds a number: `null` is a wrong type,
        /// not a missing field.
        fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
            u32::deserialize(d).map(Some)
        }
        #[derive(Deserialize)]
        #[serde(rename_all = "lowercase")]
        enum Mode {
            Pinned,
            Unpinned,
        }
        use serde::de::Error;
        let fields = Fields::deserialize(d)?;
        match (fields.mode, fields.cpu, fields.group) {
            (Mode::Pinned, Some(cpu), Some(group)) => Ok(Affinity::Pinned { cpu, group }),
            (Mode::Pinned, None, _) => Err(D::Error::missing_field("cpu")),
            (Mode::Pinned, _, None) => Err(D::Error::missing_field("group")),
            (Mode::Unpinned, None, None) => Ok(Affinity::Unpinned),
            (Mode::Unpinned, ..) => Err(D::Error::custom("an unpinned affinity has no `cpu` or `group`")),
        }
    }
}

impl Affinity {
    /// "Pinned" or "Unpinned", as the reports print it.
    pub fn label(self) -> &'static str {
        match self {
            Affinity::Pinned { .. } => "Pinned",
            Affinity::Unpinned => "Unpinned",
        }
    }
}

/// Something a reader should know about a run: a failure's details, an
/// entry left to a provider's retention, a skipped stage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Notice {
    /// Where it arose: a stage, optionally followed by " / "-separated
    /// detail, e.g. `internet` or `ubicloud / trial 1 / cleanup`.
    pub stage: Name,
    /// What happened.
    pub message: Message,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Os::name` spells each OS as the derived serde form and the schema
    /// do, and `Os::ALL` holds every OS the schema lists.
    #[test]
    fn an_os_name_is_its_form_in_a_result_file() {
        for os in Os::ALL {
            assert_eq!(serde_json::to_value(os).unwrap(), serde_json::Value::from(os.name()));
            assert_eq!(Os::from_name(os.name()), Some(os));
            assert_eq!(os.to_string(), os.name());
        }
        let schema = serde_json::to_value(schemars::schema_for!(Os)).unwrap();
        let in_schema: Vec<&str> =
            schema["oneOf"].as_array().unwrap().iter().map(|v| v["const"].as_str().unwrap()).collect();
        assert_eq!(in_schema, Os::ALL.map(Os::name));
        assert_eq!(Os::from_name("ubuntu"), None);
    }
}
