//! Reading the merged tree into [`Facts`]: the names in it (families,
//! sizings, APIs) resolved, dates parsed, every API present.

use std::collections::BTreeMap;

use super::layer::Layer;
use super::{
    path, schema, Api, Date, Facts, FactsError, Limits, ManyImages, Model, Profile, Provider,
    Sizing, Traits,
};
use crate::media::{Measure, MediaType};

impl Facts {
    pub(super) fn resolve(layer: Layer) -> Result<Facts, FactsError> {
        let doc = schema::read(layer.tree.clone())?;
        let mut sizings = BTreeMap::new();
        for (name, s) in &doc.sizings {
            s.check()
                .map_err(|m| FactsError::at(&path(&["sizings", name]), m))?;
            sizings.insert(name.clone(), *s);
        }
        let sizing_of =
            |r: &Option<schema::SizingRef>, at: &[String]| -> Result<Option<Sizing>, FactsError> {
                match r {
                    None => Ok(None),
                    Some(schema::SizingRef::Inline(s)) => {
                        s.check().map_err(|m| FactsError::at(at, m))?;
                        Ok(Some(*s))
                    }
                    Some(schema::SizingRef::Name(n)) => {
                        sizings.get(n).copied().map(Some).ok_or_else(|| {
                            FactsError::at(at, format!("no sizing is called {n:?} (see [sizings])"))
                        })
                    }
                }
            };
        // A sizing for each detail level named; `auto` is the model's own
        // `sizing`, so it has no entry here.
        let levels_of = |by: &BTreeMap<String, schema::SizingRef>,
                         at: &[String]|
         -> Result<BTreeMap<String, Sizing>, FactsError> {
            let mut out = BTreeMap::new();
            for (level, r) in by {
                let mut here = at.to_vec();
                here.push(level.clone());
                if !["low", "high", "original"].contains(&level.as_str()) {
                    return Err(FactsError::at(
                        &here,
                        format!("{level:?} is not a detail level with a sizing of its own (low, high, original; auto is `sizing`)"),
                    ));
                }
                if let Some(s) = sizing_of(&Some(r.clone()), &here)? {
                    out.insert(level.clone(), s);
                }
            }
            Ok(out)
        };
        let count = |n: Option<u64>| n.map(|n| usize::try_from(n).unwrap_or(usize::MAX));
        let mut families = BTreeMap::new();
        for (name, t) in &doc.families {
            families.insert(
                name.clone(),
                Traits {
                    sizing: sizing_of(&t.sizing, &path(&["families", name, "sizing"]))?,
                    detail_sizing: levels_of(
                        &t.detail_sizing,
                        &path(&["families", name, "detail_sizing"]),
                    )?,
                    max_images: count(t.max_images),
                    max_pages: count(t.max_pages),
                    media_in_tool_result: t.media_in_tool_result,
                    image_detail: t.image_detail,
                    cache_min_tokens: t.cache_min_tokens,
                    cache_breakpoints: t.cache_breakpoints,
                    structured_outputs: t.structured_outputs,
                },
            );
        }
        let family_of = |f: &Option<String>, at: &[String]| -> Result<Option<String>, FactsError> {
            match f {
                Some(f) if !families.contains_key(f) => Err(FactsError::at(
                    at,
                    format!("no family is called {f:?} (see [families])"),
                )),
                f => Ok(f.clone()),
            }
        };
        let api_of = |name: &str, at: &[String]| -> Result<Provider, FactsError> {
            name.parse::<Provider>().map_err(|_| {
                FactsError::at(
                    at,
                    format!(
                        "no API is called {name:?} (one of: {})",
                        Provider::NAMES.join(", ")
                    ),
                )
            })
        };
        let date_of = |s: &str, at: &[String]| -> Result<Date, FactsError> {
            s.parse::<Date>()
                .map_err(|e| FactsError::at(at, e.to_string()))
        };
        let mut models = Vec::with_capacity(doc.models.len());
        for (id, m) in &doc.models {
            let at = |key: &str| path(&["models", id.as_str(), key]);
            let apis = m
                .apis
                .iter()
                .map(|a| api_of(a, &at("apis")))
                .collect::<Result<Vec<_>, _>>()?;
            for level in &m.detail {
                if !["low", "high", "auto", "original"].contains(&level.as_str()) {
                    return Err(FactsError::at(
                        &at("detail"),
                        format!("{level:?} is not a detail level (low, high, auto, original)"),
                    ));
                }
            }
            let (mut retires, mut retires_on) = (None, BTreeMap::new());
            match &m.retires {
                None => {}
                Some(schema::RetiresDoc::All(d)) => retires = Some(date_of(d, &at("retires"))?),
                Some(schema::RetiresDoc::ByApi(by)) => {
                    for (api, d) in by {
                        let at = path(&["models", id.as_str(), "retires", api.as_str()]);
                        api_of(api, &at)?;
                        retires_on.insert(api.clone(), date_of(d, &at)?);
                    }
                }
            }
            models.push(Model {
                id: id.clone(),
                family: family_of(&m.family, &at("family"))?,
                apis,
                name: m.name.clone(),
                context: m.context,
                max_output: m.max_output,
                reasoning: m.reasoning,
                sampling: m.sampling,
                thinking: m.thinking,
                detail: m.detail.clone(),
                traits: Traits {
                    sizing: sizing_of(&m.sizing, &at("sizing"))?,
                    detail_sizing: levels_of(&m.detail_sizing, &at("detail_sizing"))?,
                    max_images: count(m.max_images),
                    max_pages: count(m.max_pages),
                    media_in_tool_result: m.media_in_tool_result,
                    image_detail: None,
                    cache_min_tokens: m.cache_min_tokens,
                    cache_breakpoints: m.cache_breakpoints,
                    structured_outputs: m.structured_outputs,
                },
                retires,
                retires_on,
                successor: m.successor.clone(),
            });
        }
        let mut apis = Vec::with_capacity(Provider::ALL.len());
        for provider in Provider::ALL {
            let name = provider.name();
            let a = doc.apis.get(name).ok_or_else(|| {
                FactsError::at(&path(&["apis", name]), "every API needs its entry")
            })?;
            let at = |key: &str| path(&["apis", name, key]);
            let default_model = a.default_model.clone().ok_or_else(|| {
                FactsError::at(&at("default_model"), "every API names its default model")
            })?;
            apis.push(Api {
                provider,
                default_model,
                family: family_of(&a.family, &at("family"))?,
                documented_models: a.documented_models,
                request_bytes: a.request_bytes,
                reasoning_developer_role: a.reasoning_developer_role,
                model_ids: a.model_ids,
                image_detail: a.image_detail,
                limits: limits(&a.limits, name)?,
            });
        }
        for name in doc.apis.keys() {
            api_of(name, &path(&["apis", name]))?;
        }
        let mut profiles = BTreeMap::new();
        for (name, value) in &doc.profiles {
            let mut value = value.clone();
            if let Some(map) = value.as_object_mut() {
                map.entry("name").or_insert_with(|| name.clone().into());
            }
            let profile = Profile::from_value(&value).map_err(|e| {
                let mut at = vec!["profiles", name.as_str()];
                if let Some(k) = e.key() {
                    at.push(k);
                }
                FactsError::at(&path(&at), e.message().to_owned())
            })?;
            profiles.insert(name.clone(), profile);
        }
        let mut by_length: Vec<usize> = (0..models.len()).collect();
        by_length.sort_by_key(|&i| std::cmp::Reverse(models[i].id.len()));
        Ok(Facts {
            sizings,
            families,
            models,
            by_length,
            apis,
            profiles,
            layer,
        })
    }
}

fn limits(l: &schema::LimitsDoc, api: &str) -> Result<Limits, FactsError> {
    let at = |key: &str| path(&["apis", api, "limits", key]);
    let measure = match l.measure.as_deref() {
        None | Some("raw") => Measure::Raw,
        Some("base64") => Measure::Base64,
        Some(other) => {
            return Err(FactsError::at(
                &at("measure"),
                format!("expected \"raw\" or \"base64\", found {other:?}"),
            ))
        }
    };
    let image_types = match &l.image_types {
        None => vec![MediaType::Png, MediaType::Jpeg],
        Some(names) => names
            .iter()
            .map(|n| {
                MediaType::ALL
                    .into_iter()
                    .find(|t| t.is_image() && t.name().eq_ignore_ascii_case(n))
                    .ok_or_else(|| {
                        FactsError::at(
                            &at("image_types"),
                            format!("{n:?} is not an image type (png, jpeg, gif, webp, bmp)"),
                        )
                    })
            })
            .collect::<Result<_, _>>()?,
    };
    Ok(Limits {
        image_bytes: l.image_bytes,
        document_bytes: l.document_bytes,
        measure,
        image_types,
        documents: l.documents.unwrap_or(false),
        image_urls: l.image_urls.unwrap_or(false),
        document_urls: l.document_urls.unwrap_or(false),
        max_images: l.max_images,
        max_documents: l.max_documents,
        max_pages: l.max_pages,
        encrypted_documents: l.encrypted_documents,
        max_total: l.max_total,
        max_dim: l.max_dim,
        many_images: l.many_images.map(|m| ManyImages {
            over: m.over,
            max_dim: m.max_dim,
            documents: m.documents,
        }),
    })
}
