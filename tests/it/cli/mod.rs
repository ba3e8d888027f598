//! The command line, through the built binary: standard streams and exit statuses, checking many
//! models, output formats and colour, settings and configuration files, the `graph` and `shapes`
//! commands, shell completions, the example pipeline program and the pre-commit hook.

mod check_many;
mod color;
mod completions;
mod dims;
mod example_pipeline;
mod graph;
mod interface;
mod pipeline;
mod pre_commit;
mod settings;
mod shapes_listing;
mod sizes_report;
