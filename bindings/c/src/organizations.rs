//! `iiko_organizations`: the answer of `iiko_client_organizations`.

use std::ffi::{c_char, CString};

use iikocloud_core::models::OrganizationsResponse;

use crate::ffi::{c_string, guard_value, opt_ptr, BoxCastable};

/// The organizations an API key can see, with typed accessors for id and name
/// and the whole answer as JSON.
///
/// Yours after `iiko_client_organizations`; free it with
/// `iiko_organizations_free`. Immutable: it may be read from several threads at
/// once. Strings read from it are borrowed and stay valid until it is freed.
#[allow(non_camel_case_types)]
pub struct iiko_organizations {
    ids: Vec<CString>,
    names: Vec<Option<CString>>,
    json: CString,
}

impl BoxCastable for iiko_organizations {}

impl iiko_organizations {
    pub(crate) fn new(response: &OrganizationsResponse, json: String) -> iiko_organizations {
        iiko_organizations {
            ids: response
                .organizations
                .iter()
                .map(|o| c_string(&o.id))
                .collect(),
            names: response
                .organizations
                .iter()
                .map(|o| o.name.as_deref().map(c_string))
                .collect(),
            json: c_string(&json),
        }
    }
}

/// The number of organizations (0 for NULL).
///
/// # Safety
/// `organizations` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_organizations_count(
    organizations: *const iiko_organizations,
) -> usize {
    guard_value(0, || {
        // SAFETY: per this function's contract.
        unsafe { organizations.as_ref() }.map_or(0, |o| o.ids.len())
    })
}

/// The UUID of organization `index` (0-based). NULL when `organizations` is
/// NULL or `index >= iiko_organizations_count(...)`. Borrowed from the handle.
///
/// # Safety
/// `organizations` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_organizations_id(
    organizations: *const iiko_organizations,
    index: usize,
) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { organizations.as_ref() }
            .and_then(|o| o.ids.get(index))
            .map_or(std::ptr::null(), |s| s.as_ptr())
    })
}

/// The name of organization `index` (UTF-8). NULL when the service sent none,
/// when `organizations` is NULL or when `index` is out of range. Borrowed from
/// the handle.
///
/// # Safety
/// `organizations` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_organizations_name(
    organizations: *const iiko_organizations,
    index: usize,
) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { organizations.as_ref() }
            .and_then(|o| o.names.get(index))
            .map_or(std::ptr::null(), opt_ptr)
    })
}

/// The whole answer as UTF-8 JSON (`{"correlationId":…,"organizations":[…]}`,
/// every field the service sent, including the Extended ones). NULL for a NULL
/// handle. Borrowed from the handle.
///
/// # Safety
/// `organizations` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_organizations_json(
    organizations: *const iiko_organizations,
) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { organizations.as_ref() }.map_or(std::ptr::null(), |o| o.json.as_ptr())
    })
}

/// Frees the handle. NULL is ignored.
///
/// # Safety
/// `organizations` must be NULL or a live handle, freed once.
#[no_mangle]
pub unsafe extern "C" fn iiko_organizations_free(organizations: *mut iiko_organizations) {
    guard_value((), || {
        // SAFETY: per this function's contract.
        unsafe { iiko_organizations::free(organizations) }
    })
}
