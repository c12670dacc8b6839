"""A little provider knowledge, without provider schemas: the arguments the most common network
resources require (an error when missing: Terraform's "Missing required argument"), and their
argument names, so a close misspelling gets a warning with the likely name.
"""

from __future__ import annotations

import difflib
from pathlib import Path

from iac_code.iac.diagnostics import Diagnostic, diag
from iac_code.iac.hcl import Block

META = {"count", "for_each", "provider", "depends_on", "lifecycle", "provisioner", "connection"}
REQUIRED = {
    "alicloud_vswitch": ("vpc_id", "cidr_block"),
    "alicloud_security_group_rule": ("type", "ip_protocol", "security_group_id"),
    "aws_subnet": ("vpc_id",),
    "aws_security_group_rule": ("type", "from_port", "to_port", "protocol", "security_group_id"),
    "aws_iam_role": ("assume_role_policy",),
    "aws_route_table_association": ("route_table_id",),
}
KNOWN = {
    "alicloud_vpc": """vpc_name name cidr_block description resource_group_id tags enable_ipv6 ipv6_isp user_cidrs
        secondary_cidr_blocks classic_link_enabled dry_run is_default system_route_table_name
        system_route_table_description ipv4_ipam_pool_id ipv4_cidr_mask ipv6_cidr_block force_delete
        enable_dns_hostname""",
    "alicloud_vswitch": """vswitch_name name cidr_block vpc_id zone_id availability_zone description tags
        enable_ipv6 ipv6_cidr_block_mask is_default""",
    "alicloud_security_group": """security_group_name name description vpc_id resource_group_id
        security_group_type inner_access_policy inner_access tags""",
    "alicloud_security_group_rule": """type ip_protocol port_range security_group_id cidr_ip ipv6_cidr_ip
        source_security_group_id source_group_owner_account prefix_list_id policy priority nic_type description""",
    "aws_vpc": """cidr_block instance_tenancy ipv4_ipam_pool_id ipv4_netmask_length ipv6_cidr_block ipv6_ipam_pool_id
        ipv6_netmask_length ipv6_cidr_block_network_border_group enable_dns_support
        enable_network_address_usage_metrics enable_dns_hostnames assign_generated_ipv6_cidr_block tags
        tags_all enable_classiclink enable_classiclink_dns_support region""",
    "aws_subnet": """vpc_id cidr_block availability_zone availability_zone_id customer_owned_ipv4_pool enable_dns64
        enable_lni_at_device_index enable_resource_name_dns_aaaa_record_on_launch
        enable_resource_name_dns_a_record_on_launch ipv6_cidr_block ipv6_native map_customer_owned_ip_on_launch
        map_public_ip_on_launch outpost_arn assign_ipv6_address_on_creation private_dns_hostname_type_on_launch
        tags tags_all region""",
}
KNOWN_SETS = {k: frozenset(v.split()) for k, v in KNOWN.items()}


def check_resource(file: Path, b: Block) -> list[Diagnostic]:
    """Missing required and likely misspelt arguments of a `resource` block of a known type."""
    if b.type != "resource" or len(b.labels) != 2:
        return []
    rtype = b.labels[0]
    out = []
    names = {a.name for a in b.attrs}
    missing = [r for r in REQUIRED.get(rtype, ()) if r not in names]
    if missing:
        out.append(diag(file, b.line, b.column, "error", "terraform.missing-argument",
                        f'resource "{rtype}" "{b.labels[1]}" lacks the required argument{"s" if len(missing) > 1 else ""} {", ".join(missing)}'))
    known = KNOWN_SETS.get(rtype)
    if known:
        for a in b.attrs:
            if a.name in known or a.name in META:
                continue
            close = difflib.get_close_matches(a.name, known, n=1, cutoff=0.8)
            if close:
                out.append(diag(file, a.line, a.column, "warning", "terraform.unknown-argument",
                                f'{rtype} has no argument "{a.name}" (did you mean "{close[0]}"?)'))
    return out
