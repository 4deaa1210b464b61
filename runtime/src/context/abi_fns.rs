//! The `extern "C"` functions of [`ContextAbi`]: they find the call's context by its handle and
//! never unwind into the library.

use super::{lookup, ClientRequest, RequestOutcome};
use delphi_mcp_manifest::abi::{context_status, ContextAbi};

/// The context record for the call registered under `handle`.
pub fn context_abi(handle: usize) -> ContextAbi {
    ContextAbi {
        size: std::mem::size_of::<ContextAbi>() as i32,
        flags: 0,
        handle,
        progress,
        log,
        cancelled,
        request,
        free,
    }
}

/// The UTF-8 text at `ptr` (lossy: the library may hand any bytes).
///
/// # Safety
/// `ptr` must be null or valid for `len` bytes.
unsafe fn text(ptr: *const u8, len: isize) -> String {
    if ptr.is_null() || len <= 0 {
        return String::new();
    }
    // SAFETY: the caller's contract.
    let bytes = unsafe { std::slice::from_raw_parts(ptr, len as usize) };
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs `f`, turning a panic into `fallback`: nothing may unwind into Pascal code.
fn guarded<T>(fallback: T, f: impl FnOnce() -> T) -> T {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or(fallback)
}

unsafe extern "C" fn progress(
    handle: usize,
    done: f64,
    total: f64,
    msg: *const u8,
    len: isize,
) -> i32 {
    // SAFETY: the library passes its message's pointer and length.
    let message = unsafe { text(msg, len) };
    guarded(context_status::FAILED, || match lookup(handle) {
        None => context_status::EXPIRED,
        Some(context) => context.progress(
            done,
            (total > 0.0).then_some(total),
            (!message.is_empty()).then_some(message.as_str()),
        ),
    })
}

unsafe extern "C" fn log(handle: usize, level: i32, msg: *const u8, len: isize) -> i32 {
    // SAFETY: as above.
    let message = unsafe { text(msg, len) };
    guarded(context_status::FAILED, || match lookup(handle) {
        None => context_status::EXPIRED,
        Some(context) => context.log(level.max(0) as usize, &message),
    })
}

unsafe extern "C" fn cancelled(handle: usize) -> i32 {
    guarded(1, || match lookup(handle) {
        None => 1,
        Some(context) => i32::from(context.is_cancelled()),
    })
}

unsafe extern "C" fn request(
    handle: usize,
    kind: i32,
    params: *const u8,
    params_len: isize,
    answer: *mut *mut u8,
    answer_len: *mut isize,
) -> i32 {
    // SAFETY: as above.
    let params = unsafe { text(params, params_len) };
    let outcome = guarded(
        RequestOutcome::refused(context_status::FAILED, "the request failed in the runtime"),
        || match (lookup(handle), ClientRequest::from_kind(kind)) {
            (None, _) => RequestOutcome::refused(
                context_status::EXPIRED,
                "the call context is no longer valid: its tool call has returned",
            ),
            (_, None) => RequestOutcome::refused(
                context_status::UNSUPPORTED,
                format!("unknown request kind {kind}"),
            ),
            (Some(context), Some(request)) => context.request(request, &params),
        },
    );
    if !answer.is_null() && !answer_len.is_null() {
        let bytes = outcome.text.into_bytes().into_boxed_slice();
        let len = bytes.len();
        // SAFETY: the library passes writable out variables; the box is released by `free`,
        // which rebuilds it from the pointer and the length written before it.
        unsafe {
            *answer_len = len as isize;
            *answer = allocate(bytes);
        }
    }
    outcome.status
}

/// Copies `bytes` behind a length header, so `free` can release them from the pointer alone.
fn allocate(bytes: Box<[u8]>) -> *mut u8 {
    let mut buffer = Vec::with_capacity(bytes.len() + HEADER);
    buffer.extend_from_slice(&bytes.len().to_ne_bytes());
    buffer.extend_from_slice(&bytes);
    let buffer = buffer.into_boxed_slice();
    let raw = Box::into_raw(buffer) as *mut u8;
    // SAFETY: the buffer holds at least HEADER bytes.
    unsafe { raw.add(HEADER) }
}

const HEADER: usize = std::mem::size_of::<usize>();

unsafe extern "C" fn free(ptr: *mut u8) {
    if ptr.is_null() {
        return;
    }
    // SAFETY: `ptr` came from `allocate`: HEADER bytes before it hold the length of what
    // follows, and the whole buffer is one boxed slice.
    unsafe {
        let start = ptr.sub(HEADER);
        let mut len = [0u8; HEADER];
        std::ptr::copy_nonoverlapping(start, len.as_mut_ptr(), HEADER);
        let len = usize::from_ne_bytes(len) + HEADER;
        drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(
            start, len,
        )));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_freed_from_their_pointer() {
        let text = "an answer".as_bytes().to_vec().into_boxed_slice();
        let ptr = allocate(text);
        // SAFETY: just allocated, 9 bytes long.
        let back = unsafe { std::slice::from_raw_parts(ptr, 9) };
        assert_eq!(back, b"an answer");
        // SAFETY: from `allocate`.
        unsafe { free(ptr) };
    }
}
