//! The machine a run was given, and which booted OS instance it was.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::common::Os;
use crate::values::{Name, Slug};

/// The machine the job ran on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Machine {
    /// OS family.
    pub os: Os,
    /// OS release, e.g. `Ubuntu 24.04.3 LTS`.
    pub os_release: Name,
    /// Architecture: `x64`, `arm64`, or another name.
    pub arch: Slug,
    /// CPU model as the OS reports it.
    pub cpu_model: Name,
    /// Logical CPUs the OS reports.
    pub logical_cpus: u32,
    /// Physical memory, bytes.
    pub memory_bytes: u64,
    /// Kernel release.
    pub kernel: Name,
    /// Hypervisor or container, where it can be told.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub virtualization: Option<Name>,
    /// Which OS instance this was.
    pub instance: Instance,
}

/// Identity of one booted OS instance, so that two jobs on one instance can
/// be told apart from two jobs on two instances.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Instance {
    /// Changes on every boot (Linux: /proc/sys/kernel/random/boot_id; macOS:
    /// kern.bootsessionuuid; Windows: the kernel's boot time); `unknown`
    /// where the OS does not tell.
    pub boot_id: Name,
    /// Stable per installation (Linux: /etc/machine-id; macOS:
    /// IOPlatformUUID; Windows: MachineGuid); `unknown` where the OS does not
    /// tell.
    pub machine_id: Name,
}

impl Instance {
    /// What the collector records for an identity the OS does not tell.
    pub const UNKNOWN: &'static str = "unknown";

    /// Whether `self` and `other` are one OS instance, as far as their
    /// records tell. An unknown value (`unknown` or empty) equals nothing,
    /// not even another unknown value:
    ///
    /// - `Some(false)`: a field known on both sides differs (another boot
    ///   or another installation), whatever the other field says;
    /// - `Some(true)`: both fields are known on both sides and equal;
    /// - `None`: cannot tell (every field known on both sides is equal, and
    ///   at least one field is unknown on one side or both).
    pub fn same_as(&self, other: &Instance) -> Option<bool> {
        let known = |n: &Name| {
            let s = n.as_str().trim();
            !s.is_empty() && s != Self::UNKNOWN
        };
        let mut all_known = true;
        for (a, b) in [(&self.boot_id, &other.boot_id), (&self.machine_id, &other.machine_id)] {
            if !known(a) || !known(b) {
                all_known = false;
            } else if a != b {
                return Some(false);
            }
        }
        all_known.then_some(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn instance(boot_id: &str, machine_id: &str) -> Instance {
        Instance { boot_id: Name::lossy(boot_id), machine_id: Name::lossy(machine_id) }
    }

    const BOOT_A: &str = "6f1c2a4e-93b1-4d0e-9a57-2b8c1d0e4f10";
    const BOOT_B: &str = "0d7e5b2a-1c3f-4e8a-b6d9-7f2a1c0e9b33";
    const MACHINE_A: &str = "a3f9c0d2e4b64c1f8d2e7b9a0c1d2e3f";
    const MACHINE_B: &str = "5b1e9d7c3a2f4e6d8c0b1a2f3e4d5c6b";

    #[test]
    fn known_instances_are_the_same_only_when_both_fields_agree() {
        assert_eq!(instance(BOOT_A, MACHINE_A).same_as(&instance(BOOT_A, MACHINE_A)), Some(true));
        assert_eq!(instance(BOOT_A, MACHINE_A).same_as(&instance(BOOT_B, MACHINE_A)), Some(false), "a reboot");
        assert_eq!(instance(BOOT_A, MACHINE_A).same_as(&instance(BOOT_A, MACHINE_B)), Some(false));
        assert_eq!(instance(BOOT_A, MACHINE_A).same_as(&instance(BOOT_B, MACHINE_B)), Some(false));
    }

    #[test]
    fn unknown_never_equals_unknown() {
        let unknown = instance(Instance::UNKNOWN, Instance::UNKNOWN);
        assert_eq!(unknown.same_as(&unknown.clone()), None);
        assert_eq!(instance("", " ").same_as(&instance("", " ")), None, "empty is unknown too");
        assert_eq!(unknown.same_as(&instance(BOOT_A, MACHINE_A)), None);
        assert_eq!(instance(BOOT_A, MACHINE_A).same_as(&unknown), None);
        // Equal where known, unknown elsewhere: cannot tell.
        assert_eq!(instance(BOOT_A, Instance::UNKNOWN).same_as(&instance(BOOT_A, Instance::UNKNOWN)), None);
        assert_eq!(instance(BOOT_A, MACHINE_A).same_as(&instance(BOOT_A, Instance::UNKNOWN)), None);
        assert_eq!(instance(Instance::UNKNOWN, MACHINE_A).same_as(&instance(Instance::UNKNOWN, MACHINE_A)), None);
    }

    #[test]
    fn a_known_difference_tells_apart_despite_an_unknown_field() {
        assert_eq!(instance(BOOT_A, Instance::UNKNOWN).same_as(&instance(BOOT_B, Instance::UNKNOWN)), Some(false));
        assert_eq!(instance(Instance::UNKNOWN, MACHINE_A).same_as(&instance(BOOT_B, MACHINE_B)), Some(false));
    }
}
