//! A claim's key made from a typed value, for the same-run rule: two values of one
//! type hash alike exactly when they are equal, whatever the file's
//! whitespace, key order or number spelling.
//!
//! The value is written by serde into a compact binary form made for this
//! and nothing else, then hashed. Compact JSON did the same job and cost
//! 11.6 % of a check's CPU time (`perf record` of `site check` of 10,000
//! results, docs/benchmarks.md), most of it in formatting every float as
//! text. CBOR (ciborium) was measured no cheaper, 138–181 ms against JSON's
//! 146–208 ms for 10,000 stage sections, and postcard 4 times cheaper
//! (37–39 ms); but postcard, like bincode, writes nothing for a field left
//! out by `skip_serializing_if`, so that `{a: 1}` and `{b: 1}` of one type
//! would hash alike. This form writes a marker for every field, present or
//! not.
//!
//! The form, for values of one Rust type: numbers as their little-endian
//! bytes (floats as their bits), a string as its byte length and bytes, an
//! option as 0 or 1 and the value, an enum variant as its index, a struct's
//! fields in order each as 1 and the value or 0 where it was skipped, and a
//! sequence's or map's entries each after a 1, with a 0 after the last. By
//! induction every value's encoding ends where it is known to end, so two
//! different values of one type never share one.

use serde::Serialize;
use serde::de::value::Error;
use serde::ser::{self, Serializer};
use sha2::{Digest as _, Sha256};

/// The SHA-256 of `kind`, a space and `value`'s encoding: a claim's key
/// (`same_run`), where `kind` keeps claims of different kinds apart.
pub(super) fn key(kind: &str, value: &impl Serialize) -> [u8; 32] {
    let mut out = Encoder(Vec::with_capacity(16 * 1024));
    out.0.extend_from_slice(kind.as_bytes());
    out.0.push(b' ');
    // Cannot fail: the encoder takes every value serde can describe.
    let _ = value.serialize(&mut out);
    Sha256::digest(&out.0).into()
}

/// Writes the encoding into its buffer.
struct Encoder(Vec<u8>);

impl Encoder {
    fn bytes(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        self.0.extend_from_slice(bytes);
    }
    fn variant(&mut self, index: u32) {
        self.0.extend_from_slice(&index.to_le_bytes());
    }
    fn marker(&mut self, present: bool) {
        self.0.push(u8::from(present));
    }
}

macro_rules! numbers {
    ($($method:ident: $ty:ty),*) => {
        $(fn $method(self, v: $ty) -> Result<(), Error> {
            self.0.extend_from_slice(&v.to_le_bytes());
            Ok(())
        })*
    };
}

impl<'a> Serializer for &'a mut Encoder {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Entries<'a>;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Self;
    type SerializeMap = Entries<'a>;
    type SerializeStruct = Self;
    type SerializeStructVariant = Self;

    numbers!(serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64, serialize_i128: i128,
        serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64, serialize_u128: u128,
        serialize_f32: f32, serialize_f64: f64);

    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.marker(v);
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<(), Error> {
        self.serialize_u32(u32::from(v))
    }
    fn serialize_str(self, v: &str) -> Result<(), Error> {
        self.bytes(v.as_bytes());
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Error> {
        self.bytes(v);
        Ok(())
    }
    fn serialize_none(self) -> Result<(), Error> {
        self.marker(false);
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        self.marker(true);
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Error> {
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Error> {
        Ok(())
    }
    fn serialize_unit_variant(self, _: &'static str, index: u32, _: &'static str) -> Result<(), Error> {
        self.variant(index);
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        index: u32,
        _: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.variant(index);
        value.serialize(self)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Entries<'a>, Error> {
        Ok(Entries(self))
    }
    fn serialize_tuple(self, _: usize) -> Result<Self, Error> {
        Ok(self)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self, Error> {
        Ok(self)
    }
    fn serialize_tuple_variant(self, _: &'static str, index: u32, _: &'static str, _: usize) -> Result<Self, Error> {
        self.variant(index);
        Ok(self)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Entries<'a>, Error> {
        Ok(Entries(self))
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, Error> {
        Ok(self)
    }
    fn serialize_struct_variant(self, _: &'static str, index: u32, _: &'static str, _: usize) -> Result<Self, Error> {
        self.variant(index);
        Ok(self)
    }
}

/// A sequence or a map: a 1 before each entry, a 0 after the last (the
/// length is not always known in advance, and need not be).
struct Entries<'a>(&'a mut Encoder);

impl ser::SerializeSeq for Entries<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.0.marker(true);
        value.serialize(&mut *self.0)
    }
    fn end(self) -> Result<(), Error> {
        self.0.marker(false);
        Ok(())
    }
}

impl ser::SerializeMap for Entries<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.0.marker(true);
        key.serialize(&mut *self.0)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        value.serialize(&mut *self.0)
    }
    fn end(self) -> Result<(), Error> {
        self.0.marker(false);
        Ok(())
    }
}

/// A tuple's elements, as many as its type has: no markers needed.
macro_rules! fixed_elements {
    ($($trait:ident: $method:ident),*) => {
        $(impl ser::$trait for &mut Encoder {
            type Ok = ();
            type Error = Error;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
                value.serialize(&mut **self)
            }
            fn end(self) -> Result<(), Error> {
                Ok(())
            }
        })*
    };
}

fixed_elements!(SerializeTuple: serialize_element, SerializeTupleStruct: serialize_field,
    SerializeTupleVariant: serialize_field);

/// A struct's fields, in the type's order: each present one after a 1, each
/// skipped one as a 0.
macro_rules! fields {
    ($($trait:ident),*) => {
        $(impl ser::$trait for &mut Encoder {
            type Ok = ();
            type Error = Error;
            fn serialize_field<T: Serialize + ?Sized>(&mut self, _: &'static str, value: &T) -> Result<(), Error> {
                self.marker(true);
                value.serialize(&mut **self)
            }
            fn skip_field(&mut self, _: &'static str) -> Result<(), Error> {
                self.marker(false);
                Ok(())
            }
            fn end(self) -> Result<(), Error> {
                Ok(())
            }
        })*
    };
}

fields!(SerializeStruct, SerializeStructVariant);

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Sample {
        #[serde(skip_serializing_if = "Option::is_none")]
        a: Option<u32>,
        #[serde(skip_serializing_if = "Option::is_none")]
        b: Option<u32>,
        list: Vec<String>,
        more: Vec<String>,
    }

    fn sample(a: Option<u32>, b: Option<u32>, list: &[&str], more: &[&str]) -> [u8; 32] {
        let strings = |s: &[&str]| s.iter().map(|s| s.to_string()).collect();
        key("t", &Sample { a, b, list: strings(list), more: strings(more) })
    }

    #[test]
    fn equal_values_hash_alike() {
        assert_eq!(sample(Some(1), None, &["x"], &[]), sample(Some(1), None, &["x"], &[]));
    }

    #[test]
    fn a_skipped_field_is_not_the_next_one() {
        // postcard and bincode would write the same bytes for these two.
        assert_ne!(sample(Some(1), None, &[], &[]), sample(None, Some(1), &[], &[]));
    }

    #[test]
    fn entries_do_not_run_into_the_next_sequence() {
        assert_ne!(sample(None, None, &["x", "y"], &[]), sample(None, None, &["x"], &["y"]));
        assert_ne!(sample(None, None, &["xy"], &[]), sample(None, None, &["x", "y"], &[]));
        assert_ne!(sample(None, None, &["", ""], &[]), sample(None, None, &[""], &[""]));
    }

    #[test]
    fn floats_by_their_bits() {
        assert_ne!(key("t", &1.0f64), key("t", &(1.0f64 + f64::EPSILON)));
        assert_eq!(key("t", &Some(2.5f64)), key("t", &Some(2.5f64)));
    }
}
