//! What a failed driver call says.

/// A failed driver call, or a kernel that could not be prepared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DriverError {
    /// No driver, or no such device.
    Unavailable(String),
    /// `cuMemAlloc` found too little free memory.
    OutOfMemory { bytes: usize },
    /// Any other failed call: which one, and the driver's error name.
    Call { call: &'static str, error: String },
    /// NVRTC could not provide the kernel.
    Compile(String),
    /// `CUDA_ERROR_ASSERT`: a kernel failed a device-side assertion, and
    /// every call on the device fails so from then on (a sticky error).
    /// `device`: the device whose kernel failed, where the driver can tell
    /// (a peer copy's call is another device's). The device itself prints
    /// which assertion failed, on the process's standard output.
    Assert {
        call: &'static str,
        device: Option<u32>,
    },
}

impl std::fmt::Display for DriverError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DriverError::Unavailable(why) => write!(f, "CUDA is not available: {why}"),
            DriverError::OutOfMemory { bytes } => {
                write!(
                    f,
                    "the driver could not allocate {bytes} bytes of device memory"
                )
            }
            DriverError::Call { call, error } => write!(f, "{call} failed: {error}"),
            DriverError::Compile(e) => write!(f, "{e}"),
            DriverError::Assert { call, .. } => {
                write!(
                    f,
                    "{call} failed: CUDA_ERROR_ASSERT: device-side assert triggered"
                )
            }
        }
    }
}

impl std::error::Error for DriverError {}

impl DriverError {
    /// Whether the error leaves the context unusable: a kernel fault, after
    /// which every later call in the process fails the same way.
    pub fn is_sticky(&self) -> bool {
        const STICKY: [&str; 10] = [
            "CUDA_ERROR_ILLEGAL_ADDRESS",
            "CUDA_ERROR_LAUNCH_FAILED",
            "CUDA_ERROR_LAUNCH_TIMEOUT",
            "CUDA_ERROR_HARDWARE_STACK_ERROR",
            "CUDA_ERROR_ILLEGAL_INSTRUCTION",
            "CUDA_ERROR_MISALIGNED_ADDRESS",
            "CUDA_ERROR_INVALID_ADDRESS_SPACE",
            "CUDA_ERROR_INVALID_PC",
            "CUDA_ERROR_ASSERT",
            "CUDA_ERROR_ECC_UNCORRECTABLE",
        ];
        match self {
            DriverError::Assert { .. } => true,
            DriverError::Call { error, .. } => STICKY.iter().any(|s| error.starts_with(s)),
            _ => false,
        }
    }
}
