//! Emulator of the iikoCloud API (placeholder, being written).
