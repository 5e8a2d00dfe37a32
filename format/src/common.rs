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
    /// Whether the published protocol pins this OS's measuring thread.
    pub fn pins(self) -> bool {
        !matches!(self, Os::Macos)
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

/// CPU affinity in force while something was measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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
