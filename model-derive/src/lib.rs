//! `#[derive(FromJson)]`: reads a type from a parsed JSON tree with
//! `pagewalk_model::json`, honouring the `#[serde]` attributes the type
//! already carries for serde's own derive (`rename_all`, `rename`,
//! `default`, `tag`), so one set of attributes says how a type is written
//! and read.
//!
//! Why not serde's `Deserialize` for reading: serde's derive compiles a
//! visitor state machine per struct (field-name visitor, one `Option` slot
//! per field, the read-from-an-array path), and in the page's WebAssembly
//! that came to over half of the worker. The code here is one call per
//! field to a function generic over the field's *type* only, so it is
//! shared by every struct with such a field. `model/tests/json_errors.rs`
//! holds the result to serde's derive on every node of the committed files.
//!
//! Supported shapes, which is all the model uses (anything else is a
//! compile error naming the attribute or shape):
//! - structs with named fields, fields with `rename`, `default` and
//!   `default = "path"`;
//! - enums of unit and newtype variants, externally tagged (`"name"` or
//!   `{"name": content}`);
//! - internally tagged enums (`tag = "kind"`) of struct variants.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as Tokens};
use quote::quote;
use syn::{parse_macro_input, Data, DeriveInput, Error, Fields, LitStr, Path};

#[proc_macro_derive(FromJson, attributes(serde))]
pub fn derive_from_json(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand(&input)
        .unwrap_or_else(Error::into_compile_error)
        .into()
}

/// What the `#[serde]` attributes on a container say.
#[derive(Default)]
struct Container {
    rename_all: Option<Case>,
    tag: Option<String>,
}

/// What the `#[serde]` attributes on a field or variant say.
#[derive(Default)]
struct Member {
    rename: Option<String>,
    default: Option<Default>,
}

enum Default {
    Trait,
    Path(Path),
}

#[derive(Clone, Copy)]
enum Case {
    Lower,
    Snake,
    Kebab,
}

impl Case {
    fn parse(lit: &LitStr) -> syn::Result<Case> {
        match lit.value().as_str() {
            "lowercase" => Ok(Case::Lower),
            "snake_case" => Ok(Case::Snake),
            "kebab-case" => Ok(Case::Kebab),
            other => Err(Error::new(
                lit.span(),
                format!("FromJson: rename_all = \"{other}\" is not supported"),
            )),
        }
    }

    /// A variant's name (`PascalCase` in Rust) as serde spells it.
    fn variant(self, name: &str) -> String {
        let mut snake = String::new();
        for (i, c) in name.chars().enumerate() {
            if c.is_uppercase() && i > 0 {
                snake.push('_');
            }
            snake.extend(c.to_lowercase());
        }
        match self {
            Case::Lower => name.to_ascii_lowercase(),
            Case::Snake => snake,
            Case::Kebab => snake.replace('_', "-"),
        }
    }

    /// A field's name (`snake_case` in Rust) as serde spells it.
    fn field(self, name: &str) -> String {
        match self {
            Case::Lower | Case::Snake => name.to_string(),
            Case::Kebab => name.replace('_', "-"),
        }
    }
}

/// Reads every `#[serde(...)]` on an item; `each` sees one key at a time.
fn serde_attrs(
    attrs: &[syn::Attribute],
    mut each: impl FnMut(&syn::meta::ParseNestedMeta) -> syn::Result<bool>,
) -> syn::Result<()> {
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        attr.parse_nested_meta(|meta| {
            if each(&meta)? {
                return Ok(());
            }
            // Only serialization options may pass unread: anything that
            // changes how a value is read must be understood here.
            if meta.path.is_ident("skip_serializing_if") {
                let _: LitStr = meta.value()?.parse()?;
                return Ok(());
            }
            let name = meta
                .path
                .get_ident()
                .map_or_else(|| "?".to_string(), ToString::to_string);
            Err(meta.error(format!("FromJson: #[serde({name})] is not supported")))
        })?;
    }
    Ok(())
}

fn container(attrs: &[syn::Attribute]) -> syn::Result<Container> {
    let mut c = Container::default();
    serde_attrs(attrs, |meta| {
        if meta.path.is_ident("rename_all") {
            c.rename_all = Some(Case::parse(&meta.value()?.parse()?)?);
        } else if meta.path.is_ident("tag") {
            c.tag = Some(meta.value()?.parse::<LitStr>()?.value());
        } else {
            return Ok(false);
        }
        Ok(true)
    })?;
    Ok(c)
}

fn member(attrs: &[syn::Attribute]) -> syn::Result<Member> {
    let mut m = Member::default();
    serde_attrs(attrs, |meta| {
        if meta.path.is_ident("rename") {
            m.rename = Some(meta.value()?.parse::<LitStr>()?.value());
        } else if meta.path.is_ident("default") {
            m.default = Some(if meta.input.peek(syn::Token![=]) {
                Default::Path(meta.value()?.parse::<LitStr>()?.parse()?)
            } else {
                Default::Trait
            });
        } else {
            return Ok(false);
        }
        Ok(true)
    })?;
    Ok(m)
}

fn expand(input: &DeriveInput) -> syn::Result<Tokens> {
    let name = &input.ident;
    let c = container(&input.attrs)?;
    let body = match &input.data {
        Data::Struct(data) => {
            if c.tag.is_some() {
                return Err(Error::new_spanned(name, "FromJson: tag is for enums"));
            }
            let build = fields(quote!(Self), &data.fields, c.rename_all)?;
            let expected = format!("struct {name}");
            quote! {
                let f = ::pagewalk_model::json::read::Fields::of(v, #expected)?;
                let built = #build;
                f.finish(built)
            }
        }
        Data::Enum(data) => match &c.tag {
            Some(tag) => tagged(name, tag, data, c.rename_all)?,
            None => external(data, c.rename_all)?,
        },
        Data::Union(_) => {
            return Err(Error::new_spanned(
                name,
                "FromJson: unions are not supported",
            ))
        }
    };
    let fallback = fallback(&input.data)?;
    let shape = shape(&input.data, &c)?;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    Ok(quote! {
        impl #impl_generics ::pagewalk_model::json::FromJson for #name #ty_generics #where_clause {
            fn from_json(
                v: &::pagewalk_model::json::Value,
            ) -> ::core::result::Result<Self, ::pagewalk_model::json::FieldError> {
                #body
            }

            fn fallback() -> Self {
                #fallback
            }

            fn shape() -> ::pagewalk_model::json::shape::Shape {
                #shape
            }
        }
    })
}

/// The type's [`Shape`](../pagewalk_model/json/shape/enum.Shape.html),
/// named as the reader names it.
fn shape(data: &Data, c: &Container) -> syn::Result<Tokens> {
    let s = quote!(::pagewalk_model::json::shape);
    Ok(match data {
        Data::Struct(data) => {
            let fields = field_shapes(&data.fields, c.rename_all)?;
            quote!(#s::Shape::Object(#fields))
        }
        Data::Enum(data) => {
            let mut variants = Vec::new();
            for v in &data.variants {
                let name = variant_name(v, c.rename_all)?;
                variants.push((name, v));
            }
            if let Some(tag) = &c.tag {
                let each = variants
                    .iter()
                    .map(|(name, v)| Ok((name, field_shapes(&v.fields, None)?)))
                    .collect::<syn::Result<Vec<_>>>()?;
                let each = each.iter().map(|(name, f)| quote!((#name, #f)));
                quote!(#s::Shape::Tagged { tag: #tag, variants: vec![#(#each),*] })
            } else if variants
                .iter()
                .all(|(_, v)| matches!(v.fields, Fields::Unit))
            {
                let names = variants.iter().map(|(name, _)| name);
                quote!(#s::Shape::Word(&[#(#names),*]))
            } else {
                let each = variants.iter().map(|(name, v)| match &v.fields {
                    Fields::Unnamed(f) => {
                        let ty = &f.unnamed[0].ty;
                        quote!((#name, Some(<#ty as ::pagewalk_model::json::FromJson>::shape as fn() -> #s::Shape)))
                    }
                    _ => quote!((#name, None)),
                });
                quote!(#s::Shape::External(vec![#(#each),*]))
            }
        }
        Data::Union(_) => quote!(#s::Shape::Opaque),
    })
}

/// `vec![Field { name, shape, optional }, ...]` for named fields.
fn field_shapes(fields: &Fields, case: Option<Case>) -> syn::Result<Tokens> {
    let s = quote!(::pagewalk_model::json::shape);
    let Fields::Named(named) = fields else {
        return Ok(quote!(vec![]));
    };
    let mut each = Vec::new();
    for field in &named.named {
        let m = member(&field.attrs)?;
        let ty = &field.ty;
        let key = json_key(field, &m, case);
        let optional = m.default.is_some();
        each.push(quote!(#s::Field {
            name: #key,
            shape: <#ty as ::pagewalk_model::json::FromJson>::shape,
            optional: #optional,
        }));
    }
    Ok(quote!(vec![#(#each),*]))
}

/// A field's JSON name: its `rename`, or its Rust name in the container's case.
fn json_key(field: &syn::Field, m: &Member, case: Option<Case>) -> String {
    let ident = field.ident.as_ref().expect("named field");
    let rust = ident.to_string();
    let rust = rust.strip_prefix("r#").unwrap_or(&rust);
    m.rename
        .clone()
        .unwrap_or_else(|| case.map_or_else(|| rust.to_string(), |c| c.field(rust)))
}

/// Any value of the type: every field's fallback, or the first variant.
fn fallback(data: &Data) -> syn::Result<Tokens> {
    let (path, fields) = match data {
        Data::Struct(s) => (quote!(Self), &s.fields),
        Data::Enum(e) => match e.variants.first() {
            Some(v) => {
                let ident = &v.ident;
                (quote!(Self::#ident), &v.fields)
            }
            None => return Err(Error::new(Span::call_site(), "FromJson: no variants")),
        },
        Data::Union(_) => {
            return Err(Error::new(
                Span::call_site(),
                "FromJson: unions are not supported",
            ))
        }
    };
    let any = quote!(::pagewalk_model::json::FromJson::fallback());
    Ok(match fields {
        Fields::Unit => path,
        Fields::Unnamed(f) => {
            let each = f.unnamed.iter().map(|_| &any);
            quote!(#path(#(#each),*))
        }
        Fields::Named(f) => {
            let each = f.named.iter().map(|field| {
                let ident = &field.ident;
                quote!(#ident: #any)
            });
            quote!(#path { #(#each),* })
        }
    })
}

/// `Path { a: f.req("a"), ... }`: every field read from the object `f`
/// (a field that does not read leaves its error in `f`).
fn fields(path: Tokens, fields: &Fields, case: Option<Case>) -> syn::Result<Tokens> {
    let Fields::Named(named) = fields else {
        return Err(Error::new_spanned(
            fields,
            "FromJson: only fields with names are supported",
        ));
    };
    let mut inits = Vec::new();
    for field in &named.named {
        let m = member(&field.attrs)?;
        let ident = field.ident.as_ref().expect("named field");
        let key = json_key(field, &m, case);
        let read = match m.default {
            None => quote!(f.req(#key)),
            Some(Default::Trait) => quote!(f.or_default(#key)),
            Some(Default::Path(p)) => quote!(f.or_else(#key, #p)),
        };
        inits.push(quote!(#ident: #read));
    }
    Ok(quote!(#path { #(#inits),* }))
}

/// A variant's JSON name.
fn variant_name(v: &syn::Variant, case: Option<Case>) -> syn::Result<String> {
    let m = member(&v.attrs)?;
    if m.default.is_some() {
        return Err(Error::new_spanned(v, "FromJson: default is for fields"));
    }
    let rust = v.ident.to_string();
    Ok(m.rename
        .unwrap_or_else(|| case.map_or_else(|| rust.clone(), |c| c.variant(&rust))))
}

/// `"name"` or `{"name": content}`, variants of no or one unnamed field.
fn external(data: &syn::DataEnum, case: Option<Case>) -> syn::Result<Tokens> {
    let mut names = Vec::new();
    let mut arms = Vec::new();
    for (i, v) in data.variants.iter().enumerate() {
        let name = variant_name(v, case)?;
        let ident = &v.ident;
        let arm = match &v.fields {
            Fields::Unit => quote! {{
                ::pagewalk_model::json::read::unit(#name, content)?;
                Ok(Self::#ident)
            }},
            Fields::Unnamed(f) if f.unnamed.len() == 1 => {
                quote!(Ok(Self::#ident(::pagewalk_model::json::read::newtype(#name, content)?)))
            }
            _ => {
                return Err(Error::new_spanned(
                    v,
                    "FromJson: an externally tagged variant has no field or one unnamed field",
                ))
            }
        };
        arms.push((syn::Index::from(i), arm));
        names.push(name);
    }
    // The index is one of `NAMES`' (read::variant checks it), so the last
    // arm takes the rest and there is no panic path.
    let Some(((_, last), rest)) = arms.split_last() else {
        return Err(Error::new(Span::call_site(), "FromJson: no variants"));
    };
    let indexes = rest.iter().map(|(i, _)| i);
    let reads = rest.iter().map(|(_, a)| a);
    Ok(quote! {
        const NAMES: &[&str] = &[#(#names),*];
        let (index, content) = ::pagewalk_model::json::read::variant(v, NAMES)?;
        match index {
            #(#indexes => #reads,)*
            _ => #last,
        }
    })
}

/// `{"kind": "name", ...fields}`: struct variants, the tag beside them.
fn tagged(
    name: &syn::Ident,
    tag: &str,
    data: &syn::DataEnum,
    case: Option<Case>,
) -> syn::Result<Tokens> {
    let mut names = Vec::new();
    let mut arms = Vec::new();
    for (i, v) in data.variants.iter().enumerate() {
        if !matches!(v.fields, Fields::Named(_)) {
            return Err(Error::new_spanned(
                v,
                "FromJson: an internally tagged variant has named fields",
            ));
        }
        names.push(variant_name(v, case)?);
        let ident = &v.ident;
        // The variant's own fields keep their Rust names (serde applies an
        // enum's rename_all to variant names only).
        let build = fields(quote!(Self::#ident), &v.fields, None)?;
        arms.push((syn::Index::from(i), build));
    }
    let Some(((_, last_build), rest)) = arms.split_last() else {
        return Err(Error::new(Span::call_site(), "FromJson: no variants"));
    };
    let indexes = rest.iter().map(|(i, _)| i);
    let builds = rest.iter().map(|(_, b)| b);
    let expected = format!("internally tagged enum {name}");
    Ok(quote! {
        const NAMES: &[&str] = &[#(#names),*];
        let (index, f) = ::pagewalk_model::json::read::tagged(v, #tag, NAMES, #expected)?;
        let built = match index {
            #(#indexes => #builds,)*
            _ => #last_build,
        };
        f.finish(built)
    })
}

#[cfg(test)]
mod tests {
    use super::Case;

    /// serde's spelling of names (`serde_derive`'s `RenameRule`).
    #[test]
    fn names_are_spelled_as_serde_spells_them() {
        assert_eq!(Case::Kebab.variant("FirstTouch"), "first-touch");
        assert_eq!(Case::Kebab.variant("HugePagesDenied"), "huge-pages-denied");
        assert_eq!(Case::Kebab.variant("Ok"), "ok");
        assert_eq!(Case::Snake.variant("TlbReach"), "tlb_reach");
        assert_eq!(Case::Lower.variant("OneThread"), "onethread");
        assert_eq!(Case::Kebab.field("run_id"), "run-id");
        assert_eq!(Case::Snake.field("run_id"), "run_id");
    }
}
