//! TODO: owned by a codec/charset work item.
