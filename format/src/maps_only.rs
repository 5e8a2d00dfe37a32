//! A deserializer under which a struct is read only from a JSON object.
//!
//! serde_json lets a derived struct be read from an array of its fields in
//! order as well as from an object (serde-rs/serde#1587: derived impls take
//! a sequence so that formats without field names can use them, and
//! serde_json offers one whenever it meets `[`). So `"provider": ["example",
//! "Example Cloud"]` passed the reader, although the format and its JSON
//! Schema say `provider` is an object, and the site then republished the
//! file as submitted. Neither serde nor serde_json has a switch for it, and
//! no maintained crate does this; `MapsOnly` wraps any deserializer and
//! passes every call through, wrapping what it hands on (visitors, seeds,
//! sequence, map and enum access) so that the rule holds at every depth,
//! and refuses a sequence only where a struct or a struct variant was
//! asked for. Everything is generic, and inlined where it is called: a
//! check of 10,000 results with it and without it differed by less than
//! this VM's run-to-run spread (docs/benchmarks.md).

use std::fmt;

use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, Unexpected, VariantAccess, Visitor,
};

/// `D`, but a struct is never read from a sequence.
pub(crate) struct MapsOnly<D>(pub(crate) D);

/// A visitor passed on; `STRUCT`: it was asked for a struct, and refuses a
/// sequence.
struct Wrap<V, const STRUCT: bool>(V);

/// Sequence, map and enum access, and seeds, passed on.
struct Seq<A>(A);
struct Map<A>(A);
struct Seed<S>(S);
struct Enum<A>(A);
struct Variant<A>(A);

macro_rules! forward_deserialize {
    ($($method:ident),* $(,)?) => {
        $(
            #[inline]
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
                self.0.$method(Wrap::<V, false>(visitor))
            }
        )*
    };
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for MapsOnly<D> {
    type Error = D::Error;

    forward_deserialize!(
        deserialize_any,
        deserialize_bool,
        deserialize_i8,
        deserialize_i16,
        deserialize_i32,
        deserialize_i64,
        deserialize_i128,
        deserialize_u8,
        deserialize_u16,
        deserialize_u32,
        deserialize_u64,
        deserialize_u128,
        deserialize_f32,
        deserialize_f64,
        deserialize_char,
        deserialize_str,
        deserialize_string,
        deserialize_bytes,
        deserialize_byte_buf,
        deserialize_option,
        deserialize_unit,
        deserialize_seq,
        deserialize_map,
        deserialize_identifier,
        deserialize_ignored_any,
    );

    #[inline]
    fn deserialize_unit_struct<V: Visitor<'de>>(self, name: &'static str, visitor: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_unit_struct(name, Wrap::<V, false>(visitor))
    }

    #[inline]
    fn deserialize_newtype_struct<V: Visitor<'de>>(self, name: &'static str, visitor: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_newtype_struct(name, Wrap::<V, false>(visitor))
    }

    #[inline]
    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_tuple(len, Wrap::<V, false>(visitor))
    }

    #[inline]
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_tuple_struct(name, len, Wrap::<V, false>(visitor))
    }

    #[inline]
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_struct(name, fields, Wrap::<V, true>(visitor))
    }

    #[inline]
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_enum(name, variants, Wrap::<V, false>(visitor))
    }

    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

macro_rules! forward_visit {
    ($($method:ident: $ty:ty),* $(,)?) => {
        $(
            #[inline]
            fn $method<E: de::Error>(self, v: $ty) -> Result<Self::Value, E> {
                self.0.$method(v)
            }
        )*
    };
}

impl<'de, V: Visitor<'de>, const STRUCT: bool> Visitor<'de> for Wrap<V, STRUCT> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.expecting(f)
    }

    forward_visit!(
        visit_bool: bool,
        visit_i8: i8,
        visit_i16: i16,
        visit_i32: i32,
        visit_i64: i64,
        visit_i128: i128,
        visit_u8: u8,
        visit_u16: u16,
        visit_u32: u32,
        visit_u64: u64,
        visit_u128: u128,
        visit_f32: f32,
        visit_f64: f64,
        visit_char: char,
        visit_str: &str,
        visit_borrowed_str: &'de str,
        visit_string: String,
        visit_bytes: &[u8],
        visit_borrowed_bytes: &'de [u8],
        visit_byte_buf: Vec<u8>,
    );

    #[inline]
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        self.0.visit_none()
    }

    #[inline]
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        self.0.visit_unit()
    }

    #[inline]
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        self.0.visit_some(MapsOnly(d))
    }

    #[inline]
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        self.0.visit_newtype_struct(MapsOnly(d))
    }

    #[inline]
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        if STRUCT {
            // Read to its end first, so that serde_json places the error
            // after the array, as it places every wrong type after its
            // value; from its start, the reader stood wherever it stopped.
            while seq.next_element::<de::IgnoredAny>()?.is_some() {}
            return Err(de::Error::invalid_type(Unexpected::Seq, &self));
        }
        self.0.visit_seq(Seq(seq))
    }

    #[inline]
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        self.0.visit_map(Map(map))
    }

    #[inline]
    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Self::Value, A::Error> {
        self.0.visit_enum(Enum(data))
    }
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for Seq<A> {
    type Error = A::Error;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, A::Error> {
        self.0.next_element_seed(Seed(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Map<A> {
    type Error = A::Error;

    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        self.0.next_key_seed(Seed(seed))
    }

    #[inline]
    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        self.0.next_value_seed(Seed(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Seed<S> {
    type Value = S::Value;

    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<S::Value, D::Error> {
        self.0.deserialize(MapsOnly(d))
    }
}

impl<'de, A: EnumAccess<'de>> EnumAccess<'de> for Enum<A> {
    type Error = A::Error;
    type Variant = Variant<A::Variant>;

    #[inline]
    fn variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<(T::Value, Self::Variant), A::Error> {
        let (value, variant) = self.0.variant_seed(Seed(seed))?;
        Ok((value, Variant(variant)))
    }
}

impl<'de, A: VariantAccess<'de>> VariantAccess<'de> for Variant<A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.0.unit_variant()
    }

    #[inline]
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, A::Error> {
        self.0.newtype_variant_seed(Seed(seed))
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, A::Error> {
        self.0.tuple_variant(len, Wrap::<V, false>(visitor))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        self.0.struct_variant(fields, Wrap::<V, true>(visitor))
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::MapsOnly;

    #[derive(Debug, PartialEq, Deserialize)]
    struct Inner {
        a: u32,
        b: String,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    enum Kind {
        Plain,
        Shaped { x: u32 },
        Pair(u32, u32),
    }

    #[derive(Debug, PartialEq, Deserialize)]
    struct Outer {
        inner: Inner,
        list: Vec<Inner>,
        maybe: Option<Inner>,
        kinds: Vec<Kind>,
        numbers: Vec<u32>,
    }

    fn read(text: &str) -> Result<Outer, String> {
        let mut de = serde_json::Deserializer::from_str(text);
        Outer::deserialize(MapsOnly(&mut de)).map_err(|e| e.to_string())
    }

    const GOOD: &str = r#"{"inner": {"a": 1, "b": "x"}, "list": [{"a": 2, "b": "y"}], "maybe": {"a": 3, "b": "z"},
        "kinds": ["Plain", {"Shaped": {"x": 4}}, {"Pair": [5, 6]}], "numbers": [7, 8]}"#;

    #[test]
    fn objects_and_true_sequences_read_as_before() {
        let outer = read(GOOD).unwrap();
        let mut de = serde_json::Deserializer::from_str(GOOD);
        assert_eq!(outer, Outer::deserialize(&mut de).unwrap());
        assert_eq!(outer.kinds, [Kind::Plain, Kind::Shaped { x: 4 }, Kind::Pair(5, 6)]);
    }

    #[test]
    fn a_struct_written_as_an_array_is_refused_at_any_depth() {
        for (from, to, line) in [
            (r#"{"a": 1, "b": "x"}"#, r#"[1, "x"]"#, "at line 1 column 18"),
            (r#"[{"a": 2, "b": "y"}]"#, r#"[[2, "y"]]"#, "at line 1 column 47"),
            (r#""maybe": {"a": 3, "b": "z"}"#, r#""maybe": [3, "z"]"#, "at line 1 column 77"),
        ] {
            let text = GOOD.replacen(from, to, 1);
            assert_ne!(text, GOOD);
            assert_eq!(read(&text).unwrap_err(), format!("invalid type: sequence, expected struct Inner {line}"));
        }
        let variant = GOOD.replace(r#"{"Shaped": {"x": 4}}"#, r#"{"Shaped": [4]}"#);
        assert_eq!(
            read(&variant).unwrap_err(),
            "invalid type: sequence, expected struct variant Kind::Shaped at line 2 column 41"
        );
        // The same text passes serde_json's own reader: what this is for.
        let mut de = serde_json::Deserializer::from_str(&variant);
        assert!(Outer::deserialize(&mut de).is_ok());
    }
}
