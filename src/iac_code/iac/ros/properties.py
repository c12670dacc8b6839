"""Rules of resource properties of common ROS types: required ones missing, and likely
misspellings of the network types' properties (a warning: ROS adds properties over time).
"""

from __future__ import annotations

from collections.abc import Iterator

from iac_code.iac.diagnostics import Diagnostic, diag
from iac_code.iac.rules import rule
from iac_code.iac.ros.template import RosTemplate, hint
from iac_code.iac.yamlsyntax import PosDict

REQUIRED = {
    "ALIYUN::ECS::VSwitch": ("VpcId", "ZoneId", "CidrBlock"),
    "ALIYUN::ECS::Instance": ("ImageId", "InstanceType"),
    "ALIYUN::ECS::InstanceGroup": ("ImageId", "InstanceType", "MaxAmount"),
    "ALIYUN::ECS::SecurityGroupIngress": ("IpProtocol", "PortRange", "SecurityGroupId"),
    "ALIYUN::ECS::SecurityGroupEgress": ("IpProtocol", "PortRange", "SecurityGroupId"),
    "ALIYUN::RDS::DBInstance": ("Engine", "EngineVersion", "DBInstanceClass", "DBInstanceStorage", "SecurityIPList"),
}
KNOWN = {
    "ALIYUN::ECS::VPC": {"CidrBlock", "VpcName", "Description", "EnableIpv6", "Ipv6CidrBlock", "ResourceGroupId", "Tags",
                         "UserCidr", "Ipv6Isp", "Ipv4IpamPoolId", "Ipv4CidrMask", "Ipv6CidrMask", "Ipv6IpamPoolId",
                         "DryRun", "ForceDelete", "EnableDnsHostname", "SecondaryCidrBlocks", "DeleteForce"},
    "ALIYUN::ECS::VSwitch": {"CidrBlock", "VpcId", "ZoneId", "VSwitchName", "Description", "Ipv6CidrBlock", "Tags",
                             "Ipv6CidrBlockMask", "EnableIpv6", "NetworkAclId", "RouteTableId", "Ipv4IpamPoolId"},
    "ALIYUN::ECS::SecurityGroup": {"VpcId", "SecurityGroupName", "Description", "SecurityGroupIngress",
                                   "SecurityGroupEgress", "SecurityGroupType", "ResourceGroupId", "Tags"},
}


def _typed(t: RosTemplate) -> Iterator[tuple[str, PosDict]]:
    for name, r in t.section("Resources").items():
        if isinstance(r, PosDict) and isinstance(r.get("Type"), str):
            yield name, r


@rule("ros.required-property", "error", "a common resource type without a property it requires (VSwitch CidrBlock, ...)", kind="ros")
def required_property(t: RosTemplate) -> Iterator[Diagnostic]:
    """The required properties of the types in `REQUIRED`."""
    for name, r in _typed(t):
        props = r.get("Properties")
        present = props if isinstance(props, dict) else {}
        missing = [p for p in REQUIRED.get(r["Type"], ()) if p not in present]
        if missing:
            pos = r.pos("Properties") if "Properties" in r else r.pos("Type")
            yield diag(required_property, t.path, *pos,
                       f'resource "{name}" ({r["Type"]}) lacks the required propert{"ies" if len(missing) > 1 else "y"} {", ".join(missing)}')


@rule("ros.unknown-property", "warning", "a property of a VPC/VSwitch/SecurityGroup that looks misspelt", kind="ros")
def unknown_property(t: RosTemplate) -> Iterator[Diagnostic]:
    """A property close to one of the type's properties in `KNOWN`."""
    for name, r in _typed(t):
        known, props = KNOWN.get(r["Type"]), r.get("Properties")
        for key in props if known and isinstance(props, PosDict) else ():
            if key not in known and (close := hint(str(key), known)):
                yield diag(unknown_property, t.path, *props.pos(key), f'resource "{name}": {r["Type"]} has no property "{key}"{close}')
