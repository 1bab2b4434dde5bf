//! Instances of the generated models and of the webhook events, made as
//! `cls.__new__(cls)` and `object.__setattr__` make them in
//! `_model.Model._load`, but writing each slot directly.
//!
//! A generated class keeps its fields in `__slots__`: CPython gives each slot
//! a member descriptor, which stores the value at a fixed offset in the
//! object. Setting 47,000 attributes of a 200-order answer through
//! `object.__setattr__` (a call per field) cost more than parsing it, so the
//! offsets are read once per class from the descriptors that attribute access
//! itself uses, and values are stored there. A class that does not fit that
//! shape (no slots, its own `__new__`) gets the generic path.
//!
//! This module is the only unsafe code of the Python crate: reading a type's
//! member table, making an instance of a Python subclass of a native class,
//! and writing the slots of an object it has just made.
#![allow(unsafe_code)]

use chrono::{Datelike, Timelike};
use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::pyclass_init::PyClassInitializer;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyNone, PyString, PyType};
use pyo3::PyClass;
use std::marker::PhantomData;

/// How instances of one class are made.
pub(crate) enum Layout {
    /// Allocated with the type's `tp_alloc` (what `object.__new__` does);
    /// each field (and `extra`) at its slot's offset.
    Slots { fields: Box<[isize]>, extra: isize },
    /// `cls.__new__(cls)` and `object.__setattr__`, as the Python loader.
    Generic {
        fields: Box<[Py<PyString>]>,
        extra: Py<PyString>,
    },
}

/// The slot behind `Model.extra` (`_model._EXTRA`): `None`, a dict of the
/// fields this version does not know, or (made here) their JSON text, which
/// `Model` reads into that dict on first use.
const EXTRA: &str = "_Model__extra";

static MEMBER_DESCRIPTOR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static OBJECT_NEW: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static OBJECT_SETATTR: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

fn object_attr<'py>(
    py: Python<'py>,
    cell: &'static PyOnceLock<Py<PyAny>>,
    name: &str,
) -> PyResult<Bound<'py, PyAny>> {
    cell.get_or_try_init(py, || {
        Ok::<_, PyErr>(
            py.import("builtins")?
                .getattr("object")?
                .getattr(name)?
                .unbind(),
        )
    })
    .map(|o| o.bind(py).clone())
}

impl Layout {
    /// The layout of `cls` for the attributes `attrs` (in `_F` order).
    pub(crate) fn of(cls: &Bound<'_, PyType>, attrs: &[Bound<'_, PyString>]) -> PyResult<Layout> {
        match slot_offsets(cls, attrs)? {
            Some((fields, extra)) => Ok(Layout::Slots { fields, extra }),
            None => Ok(Layout::Generic {
                fields: attrs.iter().map(|a| a.clone().unbind()).collect(),
                extra: PyString::new(cls.py(), EXTRA).unbind(),
            }),
        }
    }

    /// Starts an instance of `cls`, whose fields are then given one by one
    /// (see [`Building`]).
    pub(crate) fn start<'a, 'py>(
        &'a self,
        cls: &Bound<'py, PyType>,
    ) -> PyResult<Building<'a, 'py>> {
        Ok(match self {
            Layout::Slots { fields, extra } => Building::Slots {
                obj: allocate(cls)?,
                fields,
                extra: *extra,
            },
            Layout::Generic { fields, extra } => Building::Generic {
                cls: cls.clone(),
                values: std::iter::repeat_with(|| None).take(fields.len()).collect(),
                fields,
                extra,
            },
        })
    }
}

/// An instance being made.
pub(crate) enum Building<'a, 'py> {
    /// Made at the start; its slots filled as the values come (an object
    /// dropped half-made has empty slots, which CPython allows).
    Slots {
        obj: Bound<'py, PyAny>,
        fields: &'a [isize],
        extra: isize,
    },
    /// Made at the end from the values kept.
    Generic {
        cls: Bound<'py, PyType>,
        values: Vec<Option<Bound<'py, PyAny>>>,
        fields: &'a [Py<PyString>],
        extra: &'a Py<PyString>,
    },
}

impl<'py> Building<'_, 'py> {
    fn py(&self) -> Python<'py> {
        match self {
            Building::Slots { obj, .. } => obj.py(),
            Building::Generic { cls, .. } => cls.py(),
        }
    }

    /// Sets field `at` (an index of `_F`); a repeated field keeps the last value.
    pub(crate) fn set(&mut self, at: usize, value: Bound<'py, PyAny>) {
        match self {
            Building::Slots { obj, fields, .. } => {
                // SAFETY: `obj` was made by its type's allocator and
                // `fields[at]` is the offset of one of its object slots (read
                // from the member descriptor attribute access uses; see
                // `slot_offsets`).
                unsafe { store(obj, fields[at], value) }
            }
            Building::Generic { values, .. } => values[at] = Some(value),
        }
    }

    /// The instance, missing fields `None`, with its `extra` slot: the text
    /// of the members the plan did not know (`None` when there were none).
    pub(crate) fn finish(self, extra: Option<Bound<'py, PyBytes>>) -> PyResult<Bound<'py, PyAny>> {
        let extra = match extra {
            Some(text) => text.into_any(),
            None => PyNone::get(self.py()).to_owned().into_any(),
        };
        match self {
            Building::Slots {
                obj,
                fields,
                extra: at,
            } => {
                let py = obj.py();
                for &offset in fields {
                    // SAFETY: as in `set`.
                    unsafe {
                        if slot(&obj, offset).is_null() {
                            store(&obj, offset, py.None().into_bound(py));
                        }
                    }
                }
                // SAFETY: as in `set`, for the `extra` slot of `Model`.
                unsafe { store(&obj, at, extra) };
                Ok(obj)
            }
            Building::Generic {
                cls,
                values,
                fields,
                extra: name,
            } => {
                let py = cls.py();
                let obj = cls.getattr("__new__")?.call1((&cls,))?;
                let setattr = object_attr(py, &OBJECT_SETATTR, "__setattr__")?;
                for (name, value) in fields.iter().zip(values) {
                    let value = value.unwrap_or_else(|| py.None().into_bound(py));
                    setattr.call1((&obj, name.bind(py), value))?;
                }
                setattr.call1((&obj, name.bind(py), extra))?;
                Ok(obj)
            }
        }
    }
}

/// The `extra` slot of a model the native reader made, its JSON text read by
/// `read` into a dict and kept (`Model._extra_read`). Two threads reading it
/// at once get the same dict: the slot is looked at again after `read`, and
/// nothing between that look and the store runs Python code, so under the
/// GIL no other thread stores between them.
pub(crate) fn read_extra<'py>(
    model: &Bound<'py, PyAny>,
    read: impl FnOnce(&[u8]) -> PyResult<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = model.py();
    let name = pyo3::intern!(py, EXTRA);
    let kept = model.getattr(name)?;
    let Ok(text) = kept.cast::<PyBytes>() else {
        return Ok(kept);
    };
    let dict = read(text.as_bytes())?;
    let now = model.getattr(name)?;
    if !now.is(&kept) {
        return Ok(now);
    }
    // `object.__setattr__` (the model's own refuses), called directly
    // rather than through its Python wrapper and an argument tuple.
    // SAFETY: the three pointers are live objects held by this function.
    if unsafe { ffi::PyObject_GenericSetAttr(model.as_ptr(), name.as_ptr(), dict.as_ptr()) } != 0 {
        return Err(PyErr::fetch(py));
    }
    Ok(dict)
}

/// `cls.__new__(cls)` for a class that does not override `__new__`: the
/// type's `tp_alloc`, which zeroes the object (every slot empty) and tracks it
/// for the garbage collector.
fn allocate<'py>(cls: &Bound<'py, PyType>) -> PyResult<Bound<'py, PyAny>> {
    let py = cls.py();
    let tp = cls.as_type_ptr();
    // SAFETY: `tp` is a live heap type (checked in `slot_offsets`, which is
    // the only way to a `Layout::Slots`); PyType_GetSlot returns its
    // `tp_alloc`, which every Python-defined class has.
    let obj = unsafe {
        let alloc = ffi::PyType_GetSlot(tp, ffi::Py_tp_alloc);
        if alloc.is_null() {
            ffi::PyType_GenericAlloc(tp, 0)
        } else {
            let alloc: ffi::allocfunc = std::mem::transmute(alloc);
            alloc(tp, 0)
        }
    };
    // SAFETY: a new reference or NULL with an exception set.
    unsafe { Bound::from_owned_ptr_or_err(py, obj) }
}

/// The address of the object slot at `offset`.
///
/// # Safety
/// `offset` must be the offset of an object slot (a `Py_T_OBJECT_EX` member)
/// of `obj`'s type.
unsafe fn slot(obj: &Bound<'_, PyAny>, offset: isize) -> *mut ffi::PyObject {
    // SAFETY: the caller guarantees a slot of `obj` lies at `offset`; it holds
    // a `PyObject *` (NULL when empty).
    unsafe {
        *obj.as_ptr()
            .cast::<u8>()
            .offset(offset)
            .cast::<*mut ffi::PyObject>()
    }
}

/// Stores `value` in the object slot at `offset`, releasing what was there.
///
/// # Safety
/// As for [`slot`].
unsafe fn store(obj: &Bound<'_, PyAny>, offset: isize, value: Bound<'_, PyAny>) {
    // SAFETY: as in `slot`; the slot owns a reference, which moves in.
    unsafe {
        let slot = obj
            .as_ptr()
            .cast::<u8>()
            .offset(offset)
            .cast::<*mut ffi::PyObject>();
        let old = std::mem::replace(&mut *slot, value.into_ptr());
        if !old.is_null() {
            ffi::Py_DECREF(old);
        }
    }
}

/// The slot offsets of `attrs` and of `extra`, when every one of them is an
/// object slot whose member descriptor is what `cls` resolves the name to,
/// and `cls` makes its instances with `object.__new__`. `None` otherwise.
#[allow(clippy::type_complexity)]
fn slot_offsets(
    cls: &Bound<'_, PyType>,
    attrs: &[Bound<'_, PyString>],
) -> PyResult<Option<(Box<[isize]>, isize)>> {
    let py = cls.py();
    let names = attrs
        .iter()
        .cloned()
        .chain(std::iter::once(PyString::new(py, EXTRA)));
    Ok(object_slots(cls, names)?.map(|mut offsets| {
        let extra = offsets.pop().unwrap_or_default();
        (offsets.into_boxed_slice(), extra)
    }))
}

/// The offsets of the object slots `names`, in order, when each is an object
/// slot whose member descriptor is what `cls` resolves the name to, and `cls`
/// makes its instances with `object.__new__`. `None` otherwise.
fn object_slots<'py>(
    cls: &Bound<'py, PyType>,
    names: impl IntoIterator<Item = Bound<'py, PyString>>,
) -> PyResult<Option<Vec<isize>>> {
    let py = cls.py();
    // SAFETY: reading the flags of a live type.
    let flags = unsafe { ffi::PyType_GetFlags(cls.as_type_ptr()) };
    if flags & ffi::Py_TPFLAGS_HEAPTYPE == 0
        || !cls
            .getattr("__new__")?
            .is(&object_attr(py, &OBJECT_NEW, "__new__")?)
    {
        return Ok(None);
    }
    member_slots(cls, names)
}

/// The offsets of the object slots `names`, in order, when each is an object
/// slot whose member descriptor is what `cls` resolves the name to. `None`
/// otherwise.
fn member_slots<'py>(
    cls: &Bound<'py, PyType>,
    names: impl IntoIterator<Item = Bound<'py, PyString>>,
) -> PyResult<Option<Vec<isize>>> {
    let py = cls.py();
    let member_type = MEMBER_DESCRIPTOR.import(py, "types", "MemberDescriptorType")?;
    let offset_of = |name: &Bound<'_, PyString>| -> PyResult<Option<isize>> {
        let descriptor = match cls.getattr(name) {
            Ok(d) => d,
            Err(_) => return Ok(None),
        };
        if !descriptor.get_type().is(member_type) {
            return Ok(None);
        }
        let owner = descriptor.getattr("__objclass__")?;
        let owner = owner
            .cast::<PyType>()
            .map_err(|_| PyTypeError::new_err("member descriptor without a class"))?;
        member_offset(owner, &name.to_cow()?)
    };
    let mut offsets = Vec::new();
    for name in names {
        match offset_of(&name)? {
            Some(o) => offsets.push(o),
            None => return Ok(None),
        }
    }
    Ok(Some(offsets))
}

/// Makes instances of a Python subclass of the native class `T` (the
/// `iikocloud.webhooks` event classes, of `NativeEvent`): the native value,
/// then values in some of the subclass's object slots, written directly.
/// One object per instance, where a Python class holding the native object
/// in a slot made two (the second was 2-4 % of a sub-kilobyte webhook body's
/// parse).
pub(crate) struct SubclassMaker<T, const N: usize> {
    class: Py<PyType>,
    offsets: [isize; N],
    native: PhantomData<fn(T)>,
}

impl<T: PyClass, const N: usize> SubclassMaker<T, N> {
    /// A maker of `class` instances whose slots `names` are given values;
    /// `TypeError` unless `class` is a subclass of `T` with those slots.
    pub(crate) fn new(class: &Bound<'_, PyType>, names: &[&str; N]) -> PyResult<Self> {
        let py = class.py();
        if !class.is_subclass_of::<T>()? {
            return Err(PyTypeError::new_err(format!(
                "{} is no subclass of {}",
                class.name()?,
                T::NAME
            )));
        }
        let offsets = member_slots(class, names.iter().map(|n| PyString::new(py, n)))?
            .and_then(|offsets| <[isize; N]>::try_from(offsets).ok())
            .ok_or_else(|| {
                PyTypeError::new_err(format!(
                    "{} lacks one of the object slots {names:?}",
                    class.name().map(|n| n.to_string()).unwrap_or_default()
                ))
            })?;
        Ok(SubclassMaker {
            class: class.clone().unbind(),
            offsets,
            native: PhantomData,
        })
    }

    /// An instance holding `native`, with `values` in the slots named at
    /// `new`, in order.
    pub(crate) fn make<'py>(
        &self,
        py: Python<'py>,
        native: PyClassInitializer<T>,
        values: [Bound<'py, PyAny>; N],
    ) -> PyResult<Bound<'py, PyAny>> {
        // SAFETY: `class` is a subclass of `T` (checked in `new`), as
        // `tp_new_impl` requires: what PyO3's own `#[new]` does for a
        // subclass, `object.__new__` of the class and the native value moved
        // in. It returns a new reference or NULL with an exception set.
        // (`tp_new_impl` is PyO3's code for `#[new]`; Cargo.toml pins PyO3's
        // exact version.)
        let obj = unsafe {
            let obj = pyo3::impl_::pymethods::tp_new_impl::<_, T>(
                py,
                native,
                self.class.bind(py).as_type_ptr(),
            )?;
            Bound::from_owned_ptr(py, obj)
        };
        for (&offset, value) in self.offsets.iter().zip(values) {
            // SAFETY: `obj` was just made by its type's allocator and
            // `offset` is one of its object slots (read from the member
            // descriptor attribute access uses; see `member_slots`).
            unsafe { store(&obj, offset, value) }
        }
        Ok(obj)
    }
}

impl<T, const N: usize> SubclassMaker<T, N> {
    /// Slot `index` (as named at `new`) of `obj` when `obj` is an instance of
    /// exactly this maker's class (only there is the slot known to lie at its
    /// offset); `None` for any other object. An empty slot reads as `None`.
    pub(crate) fn slot_value<'py>(
        &self,
        obj: &Bound<'py, PyAny>,
        index: usize,
    ) -> Option<Bound<'py, PyAny>> {
        let offset = self.own_slot(obj, index)?;
        // SAFETY: `obj` is an instance of `class`, whose object slot lies at
        // `offset` (see `own_slot`); a non-NULL slot holds a live reference.
        unsafe { Bound::from_borrowed_ptr_or_opt(obj.py(), slot(obj, offset)) }
    }

    /// Stores `value` in slot `index` of `obj` when `obj` is an instance of
    /// exactly this maker's class; nothing otherwise.
    pub(crate) fn set_slot(&self, obj: &Bound<'_, PyAny>, index: usize, value: Bound<'_, PyAny>) {
        if let Some(offset) = self.own_slot(obj, index) {
            // SAFETY: as in `slot_value`.
            unsafe { store(obj, offset, value) };
        }
    }

    /// The offset of slot `index` when `obj`'s type is this maker's class.
    fn own_slot(&self, obj: &Bound<'_, PyAny>, index: usize) -> Option<isize> {
        let offset = *self.offsets.get(index)?;
        // A subclass could place its own slots differently: the exact class
        // only, whose offsets `new` read.
        obj.get_type()
            .is(self.class.bind(obj.py()))
            .then_some(offset)
    }
}

/// The offset of the writable object slot `name` in the member table of the
/// heap type `owner`.
fn member_offset(owner: &Bound<'_, PyType>, name: &str) -> PyResult<Option<isize>> {
    let tp = owner.as_type_ptr();
    // SAFETY: reading the flags of a live type.
    if unsafe { ffi::PyType_GetFlags(tp) } & ffi::Py_TPFLAGS_HEAPTYPE == 0 {
        return Ok(None);
    }
    // SAFETY: PyType_GetSlot accepts any heap type; the member table it
    // returns (or NULL) lives as long as the type, which `owner` keeps alive,
    // and ends with an entry whose name is NULL.
    unsafe {
        let mut member = ffi::PyType_GetSlot(tp, ffi::Py_tp_members).cast::<ffi::PyMemberDef>();
        if member.is_null() {
            return Ok(None);
        }
        while !(*member).name.is_null() {
            let m = &*member;
            if std::ffi::CStr::from_ptr(m.name).to_bytes() == name.as_bytes() {
                let writable_object = m.type_code == ffi::Py_T_OBJECT_EX
                    && m.flags & ffi::Py_READONLY == 0
                    && m.offset > 0;
                return Ok(writable_object.then_some(m.offset));
            }
            member = member.add(1);
        }
    }
    Ok(None)
}

/// The start of CPython's `PyDateTime_CAPI` (`datetime.h`), the table the
/// `datetime` module exports as the capsule `datetime.datetime_CAPI`. It is
/// not in the limited API, but its fields have kept their places since
/// Python 3.7 (new ones are added at the end), and [`DateTimes::get`] checks
/// that the table's `datetime` class is the one Python names.
#[repr(C)]
struct DateTimeCapi {
    date_type: *mut ffi::PyTypeObject,
    datetime_type: *mut ffi::PyTypeObject,
    time_type: *mut ffi::PyTypeObject,
    delta_type: *mut ffi::PyTypeObject,
    tzinfo_type: *mut ffi::PyTypeObject,
    timezone_utc: *mut ffi::PyObject,
    date_from_date: unsafe extern "C" fn(
        std::os::raw::c_int,
        std::os::raw::c_int,
        std::os::raw::c_int,
        *mut ffi::PyTypeObject,
    ) -> *mut ffi::PyObject,
    datetime_from_date_and_time: unsafe extern "C" fn(
        std::os::raw::c_int,
        std::os::raw::c_int,
        std::os::raw::c_int,
        std::os::raw::c_int,
        std::os::raw::c_int,
        std::os::raw::c_int,
        std::os::raw::c_int,
        *mut ffi::PyObject,
        *mut ffi::PyTypeObject,
    ) -> *mut ffi::PyObject,
}

/// `(year, month, day, hour, minute, second, microsecond)` as `datetime`
/// takes them.
pub(crate) type DateTimeParts = (u16, u8, u8, u8, u8, u8, u32);

/// The parts of a chrono time for `datetime`: the digits past the
/// microsecond dropped, a leap second's nanoseconds (past 999,999,999) the
/// second's last microsecond; `None` for a year below 0 or past `u16`
/// (the core's time rules give years 1 to 9999).
pub(crate) fn datetime_parts(t: &(impl Datelike + Timelike)) -> Option<DateTimeParts> {
    Some((
        u16::try_from(t.year()).ok()?,
        u8::try_from(t.month()).ok()?,
        u8::try_from(t.day()).ok()?,
        u8::try_from(t.hour()).ok()?,
        u8::try_from(t.minute()).ok()?,
        u8::try_from(t.second()).ok()?,
        t.nanosecond().min(999_999_999) / 1000,
    ))
}

/// Makes `datetime` values, naive or in UTC: through the `datetime` module's
/// C table (a call of `datetime(...)` parses seven arguments, several times
/// the cost of making the object), or by calling the class where the table
/// is not what this code expects.
pub(crate) struct DateTimes {
    class: Py<PyType>,
    capi: Option<&'static DateTimeCapi>,
}

// SAFETY: the table is immutable and lives as long as the interpreter; it is
// only used with the GIL held.
unsafe impl Send for DateTimes {}
// SAFETY: as above.
unsafe impl Sync for DateTimes {}

static DATETIMES: PyOnceLock<DateTimes> = PyOnceLock::new();

impl DateTimes {
    pub(crate) fn get(py: Python<'_>) -> PyResult<&'static DateTimes> {
        DATETIMES.get_or_try_init(py, || {
            let class = py
                .import("datetime")?
                .getattr("datetime")?
                .cast_into::<PyType>()?;
            // SAFETY: PyCapsule_Import returns the capsule's pointer (the
            // module keeps the table alive for the interpreter's life) or
            // NULL with an exception set.
            let capi = unsafe {
                ffi::PyCapsule_Import(c"datetime.datetime_CAPI".as_ptr(), 0)
                    .cast::<DateTimeCapi>()
                    .as_ref()
            };
            if capi.is_none() {
                // Not fatal: the class is called instead.
                let _ = PyErr::take(py);
            }
            let capi = capi.filter(|c| c.datetime_type == class.as_type_ptr());
            Ok::<_, PyErr>(DateTimes {
                class: class.unbind(),
                capi,
            })
        })
    }

    /// A naive `datetime`; the parts are a valid time (see `local_time`).
    pub(crate) fn naive<'py>(
        &self,
        py: Python<'py>,
        parts: DateTimeParts,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.make(py, parts, false)
    }

    /// An aware `datetime` in UTC (`tzinfo=datetime.timezone.utc`); the
    /// parts are a valid time.
    pub(crate) fn utc<'py>(
        &self,
        py: Python<'py>,
        parts: DateTimeParts,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.make(py, parts, true)
    }

    fn make<'py>(
        &self,
        py: Python<'py>,
        (y, mo, d, h, mi, s, us): DateTimeParts,
        utc: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        match self.capi {
            Some(capi) => {
                // SAFETY: the table's constructor with its own `datetime`
                // class and its own UTC zone or no zone (Py_None), as the
                // `PyDateTime_*` macros of `datetime.h` call it; it returns
                // a new reference or NULL with an exception set.
                unsafe {
                    let zone = if utc {
                        capi.timezone_utc
                    } else {
                        ffi::Py_None()
                    };
                    let obj = (capi.datetime_from_date_and_time)(
                        y.into(),
                        mo.into(),
                        d.into(),
                        h.into(),
                        mi.into(),
                        s.into(),
                        us as std::os::raw::c_int,
                        zone,
                        capi.datetime_type,
                    );
                    Bound::from_owned_ptr_or_err(py, obj)
                }
            }
            None if utc => {
                let zone = py.import("datetime")?.getattr("timezone")?.getattr("utc")?;
                self.class.bind(py).call1((y, mo, d, h, mi, s, us, zone))
            }
            None => self.class.bind(py).call1((y, mo, d, h, mi, s, us)),
        }
    }
}
