//! Connector files (`*.s1.yaml`, `*.s1.partial.yaml`): the catalog format the tool was
//! built for, planned by [`crate::pipeline`]'s connector planner.

use std::path::Path;

use crate::classify::Group;
use crate::error::Error;
use crate::model::edit::Edit;
use crate::pipeline::{Options, Plan};
use crate::walk::is_connector_file;

pub struct Connector;

impl super::Source for Connector {
    fn name(&self) -> &'static str {
        "connector"
    }

    fn claims(&self, name: &str, _path: &Path) -> bool {
        is_connector_file(name)
    }

    fn owns_name(&self, name: &str) -> bool {
        is_connector_file(name)
    }

    fn plan(
        &self,
        _name: &str,
        text: String,
        opts: &Options,
        left_alone: Option<&str>,
        group: Option<&Group>,
        render: &mut dyn FnMut(&str, &[Edit]),
    ) -> Result<Plan, Error> {
        crate::pipeline::plan_owned(text, opts, left_alone, group, render)
    }
}
