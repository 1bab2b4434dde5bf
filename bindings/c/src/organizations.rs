//! `iiko_organizations`: the answer of `iiko_client_organizations`.

use std::ffi::{c_char, CString};

use iikocloud_core::api::models::organizations::{GetOrganizationsResponse, OrganizationInfo};

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
    /// The handle of an `organizations` answer: `json` is the answer's text as
    /// the service wrote it, `response` the same text read into the generated
    /// model (ids and names for the accessors).
    pub(crate) fn new(response: &GetOrganizationsResponse, json: String) -> iiko_organizations {
        let organizations = response.organizations.as_deref().unwrap_or_default();
        iiko_organizations {
            // An id the service left out or sent as null reads as "", as it did.
            ids: organizations
                .iter()
                .map(|o| c_string(id_and_name(o).0.unwrap_or_default()))
                .collect(),
            names: organizations
                .iter()
                .map(|o| id_and_name(o).1.map(c_string))
                .collect(),
            json: c_string(&json),
        }
    }
}

/// The base fields every shape of the generated union carries; an unknown
/// `responseType` is kept as JSON, read for the same two keys.
fn id_and_name(o: &OrganizationInfo) -> (Option<&str>, Option<&str>) {
    match o {
        OrganizationInfo::Simple(s) => (s.id.as_deref(), s.name.as_deref()),
        OrganizationInfo::Extended(e) => (e.id.as_deref(), e.name.as_deref()),
        OrganizationInfo::Unknown(v) => (v["id"].as_str(), v["name"].as_str()),
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
