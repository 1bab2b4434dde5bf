//! The token cache file shared by processes, against the emulator.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Barrier};
use std::time::Duration;

use iikocloud::Client;
use iikocloud_emulator::{
    Emulator, Fault, FaultKind, DEFAULT_API_KEY, DEFAULT_APP_ID, DEFAULT_CLIENT_SECRET,
};

const V2_TOKEN: &str = "/api/v2/access_token";

fn temp_dir(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!(
        "iikocloud-token-file-{name}-{}-{}",
        std::process::id(),
        fastrand::u32(..)
    ))
}

fn client(url: &str, dir: &Path) -> Client {
    Client::builder()
        .base_url(url)
        .v2(DEFAULT_APP_ID, DEFAULT_CLIENT_SECRET, DEFAULT_API_KEY)
        .token_cache_dir(dir)
        .build()
        .unwrap()
}

fn token_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

#[test]
fn clients_with_separate_memory_share_one_token_request() {
    let emu = Emulator::start_default().unwrap();
    emu.inject(Fault::new(
        V2_TOKEN,
        FaultKind::Delay(Duration::from_millis(300)),
        1,
    ));
    let dir = temp_dir("threads");
    let barrier = Arc::new(Barrier::new(8));
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let (url, dir, barrier) = (emu.url(), dir.clone(), barrier.clone());
            std::thread::spawn(move || {
                // A client per thread: nothing shared in memory, only the file.
                let client = client(&url, &dir);
                barrier.wait();
                client.organizations(&Default::default()).map(|_| ())
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap().unwrap();
    }
    assert_eq!(emu.request_count(V2_TOKEN), 1);
    let files = token_files(&dir);
    assert_eq!(files.len(), 1);
    let text = std::fs::read_to_string(&files[0]).unwrap();
    assert!(!text.contains(DEFAULT_CLIENT_SECRET) && !text.contains(DEFAULT_API_KEY));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&files[0]).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let dir_mode = std::fs::metadata(&dir).unwrap().permissions().mode();
        assert_eq!(dir_mode & 0o777, 0o700);
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn different_credentials_never_share_a_token() {
    let emu = Emulator::start_default().unwrap();
    let dir = temp_dir("creds");
    let v2 = client(&emu.url(), &dir);
    let legacy = Client::builder()
        .base_url(emu.url())
        .api_login(DEFAULT_API_KEY)
        .token_cache_dir(&dir)
        .build()
        .unwrap();
    let a = v2.access_token().unwrap();
    let b = legacy.access_token().unwrap();
    assert_ne!(a.expose(), b.expose());
    assert_eq!(token_files(&dir).len(), 2);
    assert_ne!(v2.token_cache_file(), legacy.token_cache_file());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_corrupt_file_is_ignored_and_rewritten() {
    let emu = Emulator::start_default().unwrap();
    let dir = temp_dir("corrupt");
    let first = client(&emu.url(), &dir);
    first.access_token().unwrap();
    let path = first.token_cache_file().unwrap().to_owned();
    for junk in [
        "",
        "{\"version\":1,\"token\":",
        "[1,2,3]",
        "not json at all",
    ] {
        std::fs::write(&path, junk).unwrap();
        let fresh = client(&emu.url(), &dir);
        fresh.organizations(&Default::default()).unwrap();
        assert!(std::fs::read_to_string(&path)
            .unwrap()
            .contains("\"token\""));
    }
    assert_eq!(
        emu.request_count(V2_TOKEN),
        5,
        "each junk file cost one token request"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_refused_token_is_dropped_for_every_process() {
    let emu = Emulator::start_default().unwrap();
    let dir = temp_dir("401");
    let a = client(&emu.url(), &dir);
    let b = client(&emu.url(), &dir);
    let old = a.access_token().unwrap();
    assert_eq!(
        b.access_token().unwrap().expose(),
        old.expose(),
        "b read a's token"
    );
    emu.expire_tokens();
    a.organizations(&Default::default()).unwrap();
    // b still holds the refused token in memory: its 401 finds a's new token
    // in the file instead of asking for a third one.
    b.organizations(&Default::default()).unwrap();
    assert_eq!(emu.request_count(V2_TOKEN), 2);
    assert_eq!(
        a.access_token().unwrap().expose(),
        b.access_token().unwrap().expose()
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn an_unusable_directory_is_a_configuration_error() {
    let file = temp_dir("notadir");
    std::fs::write(&file, "x").unwrap();
    let err = Client::builder()
        .api_login("x")
        .token_cache_dir(&file)
        .build()
        .unwrap_err();
    assert!(err.to_string().contains("token cache directory"), "{err}");
    std::fs::remove_file(file).unwrap();
}

/// Entry point of the child processes of the next test; does nothing in a
/// normal run.
#[test]
fn child_process_entry() {
    let (Ok(url), Ok(dir)) = (
        std::env::var("IIKO_CHILD_URL"),
        std::env::var("IIKO_CHILD_DIR"),
    ) else {
        return;
    };
    let client = client(&url, Path::new(&dir));
    client.organizations(&Default::default()).unwrap();
}

#[test]
fn eight_processes_started_together_make_one_token_request() {
    let emu = Emulator::start_default().unwrap();
    emu.inject(Fault::new(
        V2_TOKEN,
        FaultKind::Delay(Duration::from_millis(500)),
        1,
    ));
    let dir = temp_dir("procs");
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..8)
        .map(|_| {
            Command::new(&exe)
                .args(["--exact", "child_process_entry", "--test-threads=1"])
                .env("IIKO_CHILD_URL", emu.url())
                .env("IIKO_CHILD_DIR", &dir)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    assert_eq!(emu.request_count(V2_TOKEN), 1);
    assert_eq!(emu.request_count("/api/1/organizations"), 8);
    std::fs::remove_dir_all(dir).unwrap();
}
