//! Exports the include directory to dependents (`DEP_IIKOCLOUD_INCLUDE`) and
//! sets the SONAME of the shared library.

use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let include = manifest.join("../../include");
    println!("cargo:include={}", include.display());
    println!("cargo:rerun-if-changed=build.rs");

    // SONAME policy: while the major version is 0 every minor release may break
    // the ABI, so the SONAME carries MAJOR.MINOR (libiikocloud.so.0.1); from
    // 1.0 on it carries MAJOR only. The Makefile and scripts/dist.sh read it
    // off the built library (objdump -p) for the links they install.
    let major = std::env::var("CARGO_PKG_VERSION_MAJOR").unwrap();
    let minor = std::env::var("CARGO_PKG_VERSION_MINOR").unwrap();
    let soname = if major == "0" {
        format!("libiikocloud.so.0.{minor}")
    } else {
        format!("libiikocloud.so.{major}")
    };
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,{soname}");
    }
}
