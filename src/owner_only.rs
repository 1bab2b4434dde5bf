//! Files and directories only their owner may read: the token cache and the
//! SQLite stores hold an access token.
//!
//! * Unix: mode 0600 for files, 0700 for directories, given at creation.
//! * Windows ignores those modes: a new file there inherits the ACL of its
//!   directory, and under `C:\ProgramData` that lets every user of the
//!   machine read it. So files and directories are created with a protected
//!   DACL (nothing inherited) holding one entry: full access for the user
//!   the process runs as (or the thread, when it impersonates one, as PHP
//!   under IIS may). It is given to `CreateFileW`/`CreateDirectoryW`,
//!   so the file never exists with its parent's permissions, not even for a
//!   moment.
//!
//! Only files this module creates are made private; existing ones keep
//! their permissions (an administrator may have widened them on purpose).

use std::fs::File;
use std::io;
use std::path::Path;

/// How [`open_file`] treats an existing file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Create {
    /// Open it as it is (a lock file).
    KeepExisting,
    /// Fail with `AlreadyExists` (a temporary file with a fresh name).
    New,
}

/// Opens `path` for writing, creating it private when missing.
pub(crate) fn open_file(path: &Path, how: Create) -> io::Result<File> {
    #[cfg(windows)]
    {
        win::open_file(path, how)
    }
    #[cfg(not(windows))]
    {
        let mut options = std::fs::OpenOptions::new();
        options.write(true);
        match how {
            Create::KeepExisting => options.create(true),
            Create::New => options.create_new(true),
        };
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        options.open(path)
    }
}

/// Creates `dir` and its missing parents; `dir` itself, when created here, is
/// private (on Windows its entry is inherited by the files made inside).
pub(crate) fn create_dir_all(dir: &Path) -> io::Result<()> {
    #[cfg(windows)]
    {
        win::create_dir_all(dir)
    }
    #[cfg(not(windows))]
    {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(dir)
    }
}

#[cfg(windows)]
pub(crate) use win::create_private_like;

// windows-sys has only the raw Win32 bindings; every call below is checked
// for failure and every buffer Windows allocates is freed by a guard.
#[cfg(windows)]
#[allow(unsafe_code)]
mod win {
    use std::ffi::OsStr;
    use std::fs::File;
    use std::io;
    use std::os::windows::ffi::OsStrExt;
    use std::os::windows::io::{FromRawHandle, OwnedHandle};
    use std::path::Path;
    use std::ptr;

    use windows_sys::Win32::Foundation::{
        LocalFree, ERROR_ALREADY_EXISTS, ERROR_FILE_EXISTS, GENERIC_WRITE, HANDLE,
        INVALID_HANDLE_VALUE,
    };
    use windows_sys::Win32::Security::Authorization::{
        ConvertSidToStringSidW, ConvertStringSecurityDescriptorToSecurityDescriptorW,
        GetNamedSecurityInfoW, SDDL_REVISION_1, SE_FILE_OBJECT,
    };
    use windows_sys::Win32::Security::{
        AclSizeInformation, GetAce, GetAclInformation, GetSecurityDescriptorControl,
        GetTokenInformation, TokenUser, ACCESS_ALLOWED_ACE, ACE_HEADER, ACL, ACL_SIZE_INFORMATION,
        DACL_SECURITY_INFORMATION, PSECURITY_DESCRIPTOR, PSID, SECURITY_ATTRIBUTES,
        SE_DACL_PROTECTED, TOKEN_QUERY, TOKEN_USER,
    };
    use windows_sys::Win32::Storage::FileSystem::{
        CreateDirectoryW, CreateFileW, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, FILE_SHARE_DELETE,
        FILE_SHARE_READ, FILE_SHARE_WRITE, OPEN_ALWAYS,
    };
    use windows_sys::Win32::System::Threading::{
        GetCurrentProcess, GetCurrentThread, OpenProcessToken, OpenThreadToken,
    };

    use super::Create;

    /// A NUL-terminated UTF-16 copy of a path or text.
    fn wide(s: &OsStr) -> Vec<u16> {
        s.encode_wide().chain(std::iter::once(0)).collect()
    }

    /// Memory Windows allocated with LocalAlloc for us; freed on drop.
    struct Local(*mut core::ffi::c_void);

    impl Drop for Local {
        fn drop(&mut self) {
            if !self.0.is_null() {
                // SAFETY: allocated by the API that filled it, freed once.
                unsafe { LocalFree(self.0) };
            }
        }
    }

    /// A kernel handle closed on drop.
    struct Handle(HANDLE);

    impl Drop for Handle {
        fn drop(&mut self) {
            // SAFETY: a valid handle this guard owns.
            unsafe { windows_sys::Win32::Foundation::CloseHandle(self.0) };
        }
    }

    /// `SID` as text (`S-1-5-21-...`).
    fn sid_string(sid: PSID) -> io::Result<String> {
        let mut text: *mut u16 = ptr::null_mut();
        // SAFETY: `sid` points into a live token or ACL buffer of the caller.
        if unsafe { ConvertSidToStringSidW(sid, &mut text) } == 0 {
            return Err(io::Error::last_os_error());
        }
        let guard = Local(text.cast());
        // SAFETY: a NUL-terminated string Windows just wrote.
        let len = (0..).take_while(|&i| unsafe { *text.add(i) } != 0).count();
        // SAFETY: `len` elements, all within the string.
        let units = unsafe { std::slice::from_raw_parts(text, len) };
        let s = String::from_utf16_lossy(units);
        drop(guard);
        Ok(s)
    }

    /// The SID of the user this thread acts as: the one it impersonates
    /// (a PHP request under IIS with `fastcgi.impersonate`), else the
    /// process's user. Files are created, owned and opened again as that
    /// user, so it is the one the DACL must let in.
    pub(crate) fn current_user() -> io::Result<String> {
        let mut token: HANDLE = ptr::null_mut();
        // SAFETY: pseudo-handles of this thread and process; `token` is written on success.
        let opened = unsafe {
            OpenThreadToken(GetCurrentThread(), TOKEN_QUERY, 1, &mut token) != 0
                || OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &mut token) != 0
        };
        if !opened {
            return Err(io::Error::last_os_error());
        }
        let token = Handle(token);
        let mut len = 0u32;
        // SAFETY: asks the size only (a NULL buffer of length 0).
        unsafe { GetTokenInformation(token.0, TokenUser, ptr::null_mut(), 0, &mut len) };
        // u64 elements: TOKEN_USER holds a pointer, so the buffer is aligned for it.
        let mut buf = vec![0u64; (len as usize).div_ceil(8).max(1)];
        // SAFETY: `buf` has at least `len` bytes.
        if unsafe {
            GetTokenInformation(token.0, TokenUser, buf.as_mut_ptr().cast(), len, &mut len)
        } == 0
        {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: Windows wrote a TOKEN_USER at the start of the aligned buffer.
        let user = unsafe { &*buf.as_ptr().cast::<TOKEN_USER>() };
        sid_string(user.User.Sid)
    }

    /// A self-relative security descriptor from SDDL text.
    fn descriptor(sddl: &str) -> io::Result<Local> {
        let mut sd: PSECURITY_DESCRIPTOR = ptr::null_mut();
        // SAFETY: NUL-terminated text; `sd` is written on success.
        let ok = unsafe {
            ConvertStringSecurityDescriptorToSecurityDescriptorW(
                wide(OsStr::new(sddl)).as_ptr(),
                SDDL_REVISION_1,
                &mut sd,
                ptr::null_mut(),
            )
        };
        if ok == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Local(sd))
    }

    /// Protected DACL, one entry: file-all-access (`FA`) for this user;
    /// for a directory also inherited by what is created in it (`OICI`).
    fn owner_only(directory: bool) -> io::Result<Local> {
        let inherit = if directory { "OICI" } else { "" };
        descriptor(&format!("D:P(A;{inherit};FA;;;{})", current_user()?))
    }

    fn attributes(sd: &Local) -> SECURITY_ATTRIBUTES {
        SECURITY_ATTRIBUTES {
            nLength: std::mem::size_of::<SECURITY_ATTRIBUTES>() as u32,
            lpSecurityDescriptor: sd.0,
            bInheritHandle: 0,
        }
    }

    /// CreateFileW for writing, with the sharing std uses (readers never
    /// block a rename over the file).
    fn create(path: &Path, sd: &Local, disposition: u32) -> io::Result<File> {
        let sa = attributes(sd);
        // SAFETY: NUL-terminated path; `sa` and the descriptor outlive the call.
        let h = unsafe {
            CreateFileW(
                wide(path.as_os_str()).as_ptr(),
                GENERIC_WRITE,
                FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                &sa,
                disposition,
                FILE_ATTRIBUTE_NORMAL,
                ptr::null_mut(),
            )
        };
        if h == INVALID_HANDLE_VALUE {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: a new handle nobody else owns.
        Ok(File::from(unsafe { OwnedHandle::from_raw_handle(h) }))
    }

    pub(super) fn open_file(path: &Path, how: Create) -> io::Result<File> {
        let disposition = match how {
            // The descriptor applies only if the file is created.
            Create::KeepExisting => OPEN_ALWAYS,
            Create::New => CREATE_NEW,
        };
        create(path, &owner_only(false)?, disposition)
    }

    pub(super) fn create_dir_all(dir: &Path) -> io::Result<()> {
        if dir.is_dir() {
            return Ok(());
        }
        if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)?;
        }
        let sd = owner_only(true)?;
        let sa = attributes(&sd);
        // SAFETY: NUL-terminated path; `sa` outlives the call.
        if unsafe { CreateDirectoryW(wide(dir.as_os_str()).as_ptr(), &sa) } == 0 {
            let e = io::Error::last_os_error();
            // Another process made it meanwhile.
            if e.raw_os_error() == Some(ERROR_ALREADY_EXISTS as i32) && dir.is_dir() {
                return Ok(());
            }
            return Err(e);
        }
        Ok(())
    }

    /// One entry of a DACL.
    #[derive(Debug, PartialEq, Eq)]
    pub(crate) struct DaclEntry {
        /// `ACCESS_ALLOWED_ACE_TYPE` (0), `ACCESS_DENIED_ACE_TYPE` (1), ...
        pub(crate) kind: u8,
        /// `OBJECT_INHERIT_ACE` (1), `CONTAINER_INHERIT_ACE` (2), `INHERIT_ONLY_ACE` (8), ...
        pub(crate) flags: u8,
        pub(crate) mask: u32,
        /// `S-1-...`; empty for an entry type without a plain SID.
        pub(crate) sid: String,
    }

    /// The DACL of `path` as Windows reports it: whether it is protected from
    /// inheritance, and its entries.
    pub(crate) fn dacl_of(path: &Path) -> io::Result<(bool, Vec<DaclEntry>)> {
        let mut dacl: *mut ACL = ptr::null_mut();
        let mut sd: PSECURITY_DESCRIPTOR = ptr::null_mut();
        // SAFETY: NUL-terminated path; the out-pointers are written on success.
        let rc = unsafe {
            GetNamedSecurityInfoW(
                wide(path.as_os_str()).as_ptr(),
                SE_FILE_OBJECT,
                DACL_SECURITY_INFORMATION,
                ptr::null_mut(),
                ptr::null_mut(),
                &mut dacl,
                ptr::null_mut(),
                &mut sd,
            )
        };
        if rc != 0 {
            return Err(io::Error::from_raw_os_error(rc as i32));
        }
        // `dacl` points into the descriptor: keep it until the end.
        let _sd = Local(sd);
        let mut control = 0u16;
        let mut revision = 0u32;
        // SAFETY: the descriptor just read.
        if unsafe { GetSecurityDescriptorControl(sd, &mut control, &mut revision) } == 0 {
            return Err(io::Error::last_os_error());
        }
        let protected = control & SE_DACL_PROTECTED != 0;
        if dacl.is_null() {
            // A NULL DACL lets everyone in.
            let everyone = DaclEntry {
                kind: 0,
                flags: 0,
                mask: u32::MAX,
                sid: EVERYONE.into(),
            };
            return Ok((protected, vec![everyone]));
        }
        let mut info = ACL_SIZE_INFORMATION::default();
        // SAFETY: a live ACL; `info` is the structure of this information class.
        if unsafe {
            GetAclInformation(
                dacl,
                (&mut info as *mut ACL_SIZE_INFORMATION).cast(),
                std::mem::size_of::<ACL_SIZE_INFORMATION>() as u32,
                AclSizeInformation,
            )
        } == 0
        {
            return Err(io::Error::last_os_error());
        }
        let mut entries = Vec::new();
        for i in 0..info.AceCount {
            let mut ace: *mut core::ffi::c_void = ptr::null_mut();
            // SAFETY: `i` is below the ACL's count.
            if unsafe { GetAce(dacl, i, &mut ace) } == 0 {
                return Err(io::Error::last_os_error());
            }
            // SAFETY: every ACE starts with its header.
            let header = unsafe { *ace.cast::<ACE_HEADER>() };
            // Allowed (0) and denied (1) entries share ACCESS_ALLOWED_ACE's layout.
            let (mask, sid) = if header.AceType <= 1 {
                let a = ace.cast::<ACCESS_ALLOWED_ACE>();
                // SAFETY: the SID starts at SidStart, inside the ACE.
                let sid = unsafe { ptr::addr_of_mut!((*a).SidStart) }.cast();
                // SAFETY: as above.
                (unsafe { (*a).Mask }, sid_string(sid)?)
            } else {
                (0, String::new())
            };
            entries.push(DaclEntry {
                kind: header.AceType,
                flags: header.AceFlags,
                mask,
                sid,
            });
        }
        Ok((protected, entries))
    }

    const EVERYONE: &str = "S-1-1-0";
    /// LocalSystem and the Administrators group: they can read any file.
    const SYSTEM: &str = "S-1-5-18";
    const ADMINISTRATORS: &str = "S-1-5-32-544";
    /// `INHERIT_ONLY_ACE`: an entry for what is created inside, not the object.
    const INHERIT_ONLY: u8 = 0x08;

    /// Whether the DACL of `path` lets in nobody but this user (and the
    /// accounts that can read any file anyway).
    fn private_to_user(path: &Path) -> io::Result<bool> {
        let user = current_user()?;
        let (_, entries) = dacl_of(path)?;
        Ok(entries.iter().all(|e| {
            e.kind != 0
                || e.flags & INHERIT_ONLY != 0
                || [user.as_str(), SYSTEM, ADMINISTRATORS].contains(&e.sid.as_str())
        }))
    }

    /// Creates `path` (when missing) readable by this user alone if
    /// `template` is private to this user; otherwise leaves `path` to
    /// whoever creates it, to inherit its directory's ACL as `template` may
    /// have. SQLite on Unix gives its `-wal` and `-shm` files the database
    /// file's mode; this is that rule for ACLs.
    pub(crate) fn create_private_like(template: &Path, path: &Path) -> io::Result<()> {
        if !private_to_user(template)? {
            return Ok(());
        }
        match create(path, &owner_only(false)?, CREATE_NEW) {
            Err(e) if e.raw_os_error() == Some(ERROR_FILE_EXISTS as i32) => Ok(()),
            other => other.map(drop),
        }
    }

    /// Whether this runs under Wine (its ntdll exports `wine_get_version`).
    #[cfg(test)]
    pub(crate) fn under_wine() -> bool {
        use windows_sys::Win32::System::LibraryLoader::{GetModuleHandleW, GetProcAddress};
        // SAFETY: NUL-terminated names; ntdll is loaded in every process.
        unsafe {
            let ntdll = GetModuleHandleW(wide(OsStr::new("ntdll.dll")).as_ptr());
            !ntdll.is_null() && GetProcAddress(ntdll, c"wine_get_version".as_ptr().cast()).is_some()
        }
    }
}

/// Test helper: fails unless `path` is readable by its owner only (Unix:
/// no group or other bits; Windows: a protected DACL whose one entry gives
/// this user full access).
#[cfg(test)]
pub(crate) fn assert_owner_only(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path).unwrap().permissions().mode();
        let want = if path.is_dir() { 0o700 } else { 0o600 };
        assert_eq!(mode & 0o777, want, "{}", path.display());
    }
    #[cfg(windows)]
    {
        use windows_sys::Win32::Storage::FileSystem::FILE_ALL_ACCESS;
        let (protected, entries) = win::dacl_of(path).unwrap();
        let user = win::current_user().unwrap();
        let shown = format!("{}: {protected} {entries:?}", path.display());
        if win::under_wine() {
            // Wine 8 keeps no ACLs: it turns the DACL given at creation into
            // Unix mode bits, and reports a DACL made from those (the owner
            // and SYSTEM, never protected). An inherited one adds Everyone.
            assert!(
                entries
                    .iter()
                    .any(|e| e.kind == 0 && e.sid == user && e.mask == FILE_ALL_ACCESS),
                "{shown}"
            );
            assert!(
                entries
                    .iter()
                    .all(|e| e.kind != 0 || e.sid == user || e.sid == "S-1-5-18"),
                "{shown}"
            );
        } else {
            assert!(protected, "inherits from the parent: {shown}");
            let inherit = if path.is_dir() { 0x3 } else { 0 }; // OBJECT_INHERIT | CONTAINER_INHERIT
            let only_entry = win::DaclEntry {
                kind: 0,
                flags: inherit,
                mask: FILE_ALL_ACCESS,
                sid: user.clone(),
            };
            assert_eq!(entries, vec![only_entry], "{shown}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> std::path::PathBuf {
        std::env::temp_dir().join(format!(
            "iikocloud-owner-only-{name}-{}-{}",
            std::process::id(),
            fastrand::u32(..)
        ))
    }

    #[test]
    fn files_and_directories_are_private() {
        let dir = temp_dir("private");
        create_dir_all(&dir.join("nested")).unwrap();
        create_dir_all(&dir.join("nested")).unwrap(); // existing: fine
        assert_owner_only(&dir.join("nested"));
        let file = dir.join("nested").join("token");
        std::io::Write::write_all(&mut open_file(&file, Create::New).unwrap(), b"x").unwrap();
        assert_owner_only(&file);
        let e = open_file(&file, Create::New).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::AlreadyExists);
        open_file(&file, Create::KeepExisting).unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"x", "kept, not truncated");
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// The check itself fails on a file made the ordinary way, so a test
    /// that passes it proves something.
    #[test]
    fn an_ordinary_file_is_not_private() {
        let dir = temp_dir("plain");
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("plain");
        std::fs::write(&file, b"x").unwrap();
        #[cfg(unix)]
        std::fs::set_permissions(&file, std::os::unix::fs::PermissionsExt::from_mode(0o644))
            .unwrap();
        let check = std::panic::catch_unwind(|| assert_owner_only(&file));
        assert!(
            check.is_err(),
            "an inherited ACL / mode 0644 passed the check"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[cfg(windows)]
    #[test]
    fn companions_follow_the_database() {
        let dir = temp_dir("like");
        create_dir_all(&dir).unwrap();
        let private = dir.join("db");
        open_file(&private, Create::New).unwrap();
        create_private_like(&private, &dir.join("db-wal")).unwrap();
        assert_owner_only(&dir.join("db-wal"));
        create_private_like(&private, &dir.join("db-wal")).unwrap(); // existing: fine
                                                                     // A template others may read: nothing is created.
        let plain_dir = temp_dir("like-plain");
        std::fs::create_dir_all(&plain_dir).unwrap();
        std::fs::write(plain_dir.join("db"), b"").unwrap();
        create_private_like(&plain_dir.join("db"), &plain_dir.join("db-wal")).unwrap();
        assert!(!plain_dir.join("db-wal").exists());
        std::fs::remove_dir_all(dir).unwrap();
        std::fs::remove_dir_all(plain_dir).unwrap();
    }
}
