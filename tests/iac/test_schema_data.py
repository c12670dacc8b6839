"""The bundled resource type and provider data, and the generators that make it (run here on
small inputs written in the shape of the real packages: the real ones are downloaded by hand,
see docs/DEVELOPING.md)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from iac_code.iac.ros import resource_types
from iac_code.iac.terraform import schema

SCRIPTS = Path(__file__).parents[2] / "scripts"


def _script(name: str):
    sys.path.insert(0, str(SCRIPTS))
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_ros_types_describe_properties_requirements_and_attributes() -> None:
    vswitch = resource_types.lookup("ALIYUN::ECS::VSwitch")
    assert vswitch is not None and vswitch.described
    assert {"VpcId", "ZoneId", "CidrBlock"} <= set(vswitch.required)
    assert vswitch.properties["CidrBlock"] == "s" and "VSwitchId" in vswitch.attributes
    tags = vswitch.properties["Tags"]
    assert tags.startswith("[#") and "Key" in resource_types.struct(int(tags[2:-1])).properties
    assert resource_types.lookup("ALIYUN::ECS::NoSuchThing") is None
    assert resource_types.source().startswith("ros-cdk-* 1.")


def test_ros_legacy_names_from_the_documentation_are_kept() -> None:
    slb = resource_types.lookup("ALIYUN::SLB::LoadBalancer")
    assert "PayType" in slb.legacy and "PayType" not in slb.properties
    old = resource_types.lookup("ALIYUN::CS::KubernetesCluster")  # documented, no longer in the CDK
    assert old is not None and not old.described


def test_ros_misspelt_types_but_not_versions_or_other_letter_case_variants() -> None:
    assert resource_types.misspelt("ALIYUN::ECS::VSwich") == "ALIYUN::ECS::VSwitch"
    assert resource_types.misspelt("ALIYUN::ECS::Vpc") == "ALIYUN::ECS::VPC"
    assert resource_types.misspelt("ALIYUN::DTS::MigrationJob") is None  # beside MigrationJob2: a real old type
    assert resource_types.misspelt("ALIYUN::ECS::EIP") is None  # short names are too close to each other


def test_every_bundled_provider_names_its_source_version_and_licence() -> None:
    names = schema.bundled_names()
    assert {"aws", "alicloud", "azurerm", "google", "kubernetes", "helm", "random", "null", "tls", "local",
            "archive", "time"} <= set(names)
    for name in names:
        p = schema.bundled(name)
        assert p.name.endswith(f"/{name}") and p.version and p.source
        raw = json.loads((schema.DATA / f"{name}.json").read_text())
        assert "MPL-2.0" in raw["license"]


def test_aws_subnet_shape_from_the_bundled_data() -> None:
    subnet = schema.bundled("aws").resource("aws_subnet")
    assert "vpc_id" in subnet.required and "cidr_block" in subnet.optional
    assert "arn" in subnet.computed and not subnet.settable("arn") and subnet.readable("arn")
    assert "timeouts" in subnet.blocks and subnet.blocks["timeouts"][1].settable("create")
    assert schema.bundled("aws").data_source("aws_ami") is not None
    assert schema.bundled("aws").resource("aws_no_such_thing") is None
    assert schema.bundled("../aws") is None


def test_providers_schema_json_becomes_the_same_shape() -> None:
    doc = {"format_version": "1.0", "provider_schemas": {"registry.terraform.io/hashicorp/demo": {
        "resource_schemas": {"demo_thing": {"version": 0, "block": {
            "attributes": {"id": {"type": "string", "optional": True, "computed": True},
                           "name": {"type": "string", "required": True},
                           "arn": {"type": "string", "computed": True}},
            "block_types": {"rule": {"nesting_mode": "list", "min_items": 1,
                                     "block": {"attributes": {"port": {"type": "number", "required": True}}}}}}}},
        "data_source_schemas": {}}}}
    provider = schema.installed(doc)["hashicorp/demo"]
    thing = provider.resource("demo_thing")
    assert thing.required == {"name"} and thing.computed == {"arn"} and "id" in thing.optional
    required, rule = thing.blocks["rule"]
    assert required and rule.required == {"port"}


def test_tf_package_generator_reads_the_cdk_javascript() -> None:
    gen = _script("gen_tf_schema")
    js = '''
class DemoThingRuleOutputReference extends cdktn.ComplexObject {
    // port - computed: false, optional: false, required: true
    get port() { return this.getNumberAttribute('port'); }
}
class DemoThingRuleList extends cdktn.ComplexList {
    get(index) {
        return new DemoThingRuleOutputReference(this.terraformResource, this.terraformAttribute, index, this.wrapsSet);
    }
}
function demoThingRuleToHclTerraform(struct) {
    const attrs = {
        port: {
            value: cdktn.numberToHclTerraform(struct.port),
            isBlock: false,
'''
    js += '''
class DemoThing extends cdktn.TerraformResource {
    static tfResourceType = "demo_thing";
    // arn - computed: true, optional: false, required: false
    get arn() { return this.getStringAttribute('arn'); }
    // name - computed: false, optional: false, required: true
    get name() { return this.getStringAttribute('name'); }
    // rule - computed: false, optional: false, required: true
    _rule = new DemoThingRuleList(this, "rule", false);
    synthesizeHclAttributes() {
        const attrs = {
            name: {
                value: cdktn.stringToHclTerraform(this._name),
                isBlock: false,
            rule: {
                value: cdktn.listMapperHcl(demoThingRuleToHclTerraform, true)(this._rule.internalValue),
                isBlock: true,
'''
    manifest = {"name": "@cdktn/provider-demo", "version": "1.0.0", "license": "MPL-2.0",
                "cdktn": {"provider": {"name": "registry.terraform.io/hashicorp/demo", "version": "2.3.4"}}}
    data = gen.from_package(manifest, {"package/lib/thing/index.js": js})
    assert data["provider"] == "hashicorp/demo" and data["version"] == "2.3.4"
    thing = data["resources"]["demo_thing"]
    assert thing["r"] == ["name"] and thing["c"] == ["arn"]
    assert thing["b"]["rule"][0] == 0  # the packages' block flags are not trusted
    assert data["structs"][thing["b"]["rule"][1]] == {"r": ["port"]}


def test_go_schema_generator_reads_sdk_literals() -> None:
    gen = _script("gen_tf_goschema")
    go = '''Schema: map[string]*schema.Schema{
        "name": {
            Type:     schema.TypeString,
            Required: true,
        },
        "note": {Type: schema.TypeString, Optional: true, Description: "a } in a string"},
        "status": {Type: schema.TypeString, Computed: true},
        "gone": {Type: schema.TypeString, Optional: true, Removed: "use name"},
        "shared": sharedSchema(),
        "rule": {
            Type:     schema.TypeList,
            Optional: true,
            Elem: &schema.Resource{
                Schema: map[string]*schema.Schema{
                    "port": {Type: schema.TypeInt, Required: true},
                },
            },
        },
    }'''
    structs = gen.Structs()
    shape = gen.parse_schema_map(go, go.index("{"), structs)
    assert shape["r"] == ["name"] and shape["c"] == ["status"] and set(shape["o"]) == {"note", "shared"}
    assert structs.items[shape["b"]["rule"][1]] == {"r": ["port"]}


def test_ros_generator_reads_the_cdk_assembly_and_renderers() -> None:
    gen = _script("gen_ros_schema")
    core = "@alicloud/ros-cdk-core"
    assembly = {"types": {
        "demo.RosThing": {"kind": "class", "base": f"{core}.RosResource", "name": "RosThing",
                          "locationInModule": {"filename": "lib/demo.generated.ts"},
                          "initializer": {"parameters": [{}, {}, {"type": {"fqn": "demo.RosThingProps"}}]}},
        "demo.RosThingProps": {"kind": "interface", "name": "RosThingProps", "properties": [
            {"name": "vpcId", "type": {"union": {"types": [{"primitive": "string"}, {"fqn": f"{core}.IResolvable"}]}}},
            {"name": "size", "optional": True, "type": {"primitive": "number"}},
            {"name": "tags", "optional": True, "type": {"collection": {"kind": "array", "elementtype": {"fqn": f"{core}.RosTag"}}}}]},
    }}
    js = '''function rosThingPropsToRosTemplate(properties, enableResourcePropertyConstraint) {
    return {
        'VpcId': ros.stringToRosTemplate(properties.vpcId),
        Size: ros.numberToRosTemplate(properties.size),
        'Tags': ros.listMapper(ros.rosTagToRosTemplate)(properties.tags),
    };
}
class RosThing extends ros.RosResource {
    constructor(scope, id, props, enableResourcePropertyConstraint) {
        this.attrThingId = this.getAtt('ThingId');
    }
}
exports.RosThing = RosThing;
RosThing.ROS_RESOURCE_TYPE_NAME = "ALIYUN::DEMO::Thing";
'''
    g = gen.Generator()
    g.add(assembly, {"lib/demo.generated.js": js})
    thing = g.types["ALIYUN::DEMO::Thing"]
    assert thing["p"] == {"Size": "n", "Tags": "[#0]", "VpcId": "s"} and thing["r"] == ["VpcId"] and thing["a"] == ["ThingId"]
    assert g.structs[0] == {"p": {"Key": "s", "Value": "s"}, "r": ["Key"]}


@pytest.mark.parametrize("path", [resource_types.DATA, *sorted(schema.DATA.glob("*.json"))], ids=lambda p: p.name)
def test_data_files_are_compact_json(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert text == json.dumps(json.loads(text), separators=(",", ":")) + "\n"  # one line, no padding
