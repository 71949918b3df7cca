//! The processor and whether it is virtual, from CPUID.

use pagewalk_model::{Cpu, Virtualization};
use raw_cpuid::CpuId;

pub fn identify() -> (Cpu, Virtualization) {
    let id = CpuId::new();
    let features = id.get_feature_info();
    let cpu = Cpu {
        vendor: id
            .get_vendor_info()
            .map(|v| v.as_str().to_string())
            .unwrap_or_default(),
        model_name: id
            .get_processor_brand_string()
            .map(|b| b.as_str().trim().to_string())
            .unwrap_or_default(),
        family: features.as_ref().map_or(0, |f| f.family_id().into()),
        model: features.as_ref().map_or(0, |f| f.model_id().into()),
        stepping: features.as_ref().map_or(0, |f| f.stepping_id().into()),
        logical_cpus: online_cpus(),
    };
    let hypervisor_bit = features.is_some_and(|f| f.has_hypervisor());
    let virtualization = Virtualization {
        hypervisor_bit,
        // Leaf 0x4000_0000 is only defined when the hypervisor bit is set.
        hypervisor_vendor: hypervisor_bit
            .then(hypervisor_signature)
            .filter(|s| !s.is_empty()),
    };
    (cpu, virtualization)
}

/// The raw 12-byte signature (`KVMKVMKVM`, `Microsoft Hv`), kept verbatim so
/// hypervisors raw-cpuid does not know are still named.
fn hypervisor_signature() -> String {
    let leaf = raw_cpuid::cpuid!(0x4000_0000);
    let bytes: Vec<u8> = [leaf.ebx, leaf.ecx, leaf.edx]
        .iter()
        .flat_map(|r| r.to_le_bytes())
        .take_while(|&b| b != 0)
        .collect();
    String::from_utf8_lossy(&bytes).trim().to_string()
}

/// Online CPUs, not this process's affinity mask: the machine, not the run.
fn online_cpus() -> usize {
    // SAFETY: sysconf has no memory-safety preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    usize::try_from(n).unwrap_or(1).max(1)
}
