//! Inbound webhooks (placeholder, being written).
