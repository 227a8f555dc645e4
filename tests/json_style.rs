//! Keys inserted into a JSON document are written as the document writes its own:
//! its `" : "` between a key and its value, and its tab indentation.

mod common;

use common::{run_in, write_file};

#[test]
fn inserted_json_keys_copy_the_documents_colon_and_tabs() {
    let tmp = tempfile::tempdir().unwrap();
    let doc = "{\n\t\"openapi\" : \"3.0.0\",\n\t\"info\" : {\n\t\t\"title\" : \"Pets\",\n\t\t\"version\" : \"1\"\n\t},\n\t\"paths\" : {\n\t\t\"/pets\" : {\n\t\t\t\"get\" : {\n\t\t\t\t\"operationId\" : \"listPets\",\n\t\t\t\t\"x-zilla-mcp\" : {\n\t\t\t\t\t\"title\" : \"x\"\n\t\t\t\t}\n\t\t\t}\n\t\t}\n\t}\n}\n";
    write_file(tmp.path(), "api.json", doc);
    common::git_init(tmp.path());
    let r = run_in(
        tmp.path(),
        &["backfill", "api.json", "--hints", "zilla", "--write"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let now = std::fs::read_to_string(tmp.path().join("api.json")).unwrap();
    let want = "\t\t\t\"get\" : {\n\t\t\t\t\"x-effects\" : [\"read\"],\n\t\t\t\t\"operationId\" : \"listPets\",\n\t\t\t\t\"x-zilla-mcp\" : {\n\t\t\t\t\t\"annotations\" : {\n\t\t\t\t\t\t\"readOnlyHint\" : true,\n\t\t\t\t\t\t\"destructiveHint\" : false,\n\t\t\t\t\t\t\"openWorldHint\" : true\n\t\t\t\t\t},\n\t\t\t\t\t\"title\" : \"x\"\n";
    assert!(now.contains(want), "{now}");
    let json: serde_json::Value = serde_json::from_str(&now).unwrap();
    assert_eq!(
        json["paths"]["/pets"]["get"]["x-zilla-mcp"]["annotations"]["readOnlyHint"],
        true
    );
    // A minified document stays minified, its colon bare.
    let tmp = tempfile::tempdir().unwrap();
    write_file(
        tmp.path(),
        "api.json",
        "{\"openapi\":\"3.0.0\",\"paths\":{\"/pets\":{\"get\":{\"operationId\":\"listPets\"}}}}",
    );
    let r = run_in(tmp.path(), &["backfill", "api.json", "--patch", "-"]);
    assert!(
        r.stdout
            .contains("+{\"openapi\":\"3.0.0\",\"paths\":{\"/pets\":{\"get\":{\"x-effects\":[\"read\"],\"operationId\":\"listPets\"}}}}"),
        "{}",
        r.stdout
    );
}
