/* bcryptprimitives.dll for Wine 8.0, which lacks it: Rust's std (1.78 and newer) imports
   ProcessPrng from it on Windows. The shim fills the buffer from RtlGenRandom
   (advapi32's SystemFunction036), as Windows' own ProcessPrng does from its system RNG.
   Built and installed into the test Wine prefix by scripts/install-windows-tools.sh. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x10000000 ? 0x10000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
