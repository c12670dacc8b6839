"""A little provider knowledge, without provider schemas: the arguments the most common network
resources require (an error when missing: Terraform's "Missing required argument"), their
argument names, so a close misspelling gets a warning with the likely name, and the common
resource types, so a near miss gets a warning.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator

from iac_code.iac.diagnostics import Diagnostic, diag
from iac_code.iac.rules import rule
from iac_code.iac.terraform.module import Decl, ModuleTarget

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
RESOURCE_TYPES = frozenset("""
alicloud_vpc alicloud_vswitch alicloud_security_group alicloud_security_group_rule alicloud_instance
alicloud_nat_gateway alicloud_eip_address alicloud_eip_association alicloud_snat_entry alicloud_forward_entry
alicloud_slb_load_balancer alicloud_slb_listener alicloud_alb_load_balancer alicloud_db_instance
alicloud_db_database alicloud_db_account alicloud_oss_bucket alicloud_ram_role alicloud_ram_policy
alicloud_ram_user alicloud_route_entry alicloud_route_table alicloud_route_table_attachment alicloud_ecs_disk
alicloud_ecs_key_pair alicloud_cs_managed_kubernetes alicloud_kvstore_instance alicloud_log_project
alicloud_log_store alicloud_vpc_ipv4_cidr_block alicloud_common_bandwidth_package alicloud_ecs_instance_set
aws_vpc aws_subnet aws_security_group aws_security_group_rule aws_instance aws_internet_gateway aws_nat_gateway
aws_eip aws_route_table aws_route aws_route_table_association aws_s3_bucket aws_s3_bucket_policy
aws_s3_bucket_versioning aws_s3_bucket_public_access_block aws_iam_role aws_iam_policy
aws_iam_role_policy_attachment aws_iam_role_policy aws_iam_instance_profile aws_iam_user aws_lb aws_alb
aws_lb_target_group aws_lb_listener aws_db_instance aws_db_subnet_group aws_kms_key aws_kms_alias
aws_cloudwatch_log_group aws_lambda_function aws_ecs_cluster aws_ecs_service aws_ecs_task_definition
aws_eks_cluster aws_eks_node_group aws_vpc_endpoint aws_key_pair aws_launch_template aws_autoscaling_group
aws_sns_topic aws_sqs_queue aws_dynamodb_table aws_ecr_repository aws_route53_record aws_route53_zone
aws_acm_certificate aws_vpc_ipv4_cidr_block_association aws_network_acl aws_flow_log aws_alb_listener
aws_alb_target_group aws_lb_listener_rule aws_alb_listener_rule aws_lb_target_group_attachment
aws_alb_target_group_attachment
""".split())


def _typo_distance(a: str, b: str) -> int:
    """Edits (insert, delete, substitute, swap of neighbours) turning `a` into `b`."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[-1]


def _resources(t: ModuleTarget) -> Iterator[Decl]:
    for d in t.module.blocks:
        if d.block.type == "resource":
            yield d


@rule("terraform.resource-missing-argument", "error", "a common resource type without an argument it requires (vswitch/subnet `vpc_id`, ...)",
      kind="terraform")
def resource_missing_argument(t: ModuleTarget) -> Iterator[Diagnostic]:
    """Terraform: "Missing required argument", for the types in `REQUIRED`."""
    for d in _resources(t):
        b = d.block
        names = {a.name for a in b.attrs}
        missing = [r for r in REQUIRED.get(b.labels[0], ()) if r not in names]
        if missing:
            yield diag(resource_missing_argument, d.file, b.line, b.column,
                       f'resource "{b.labels[0]}" "{b.labels[1]}" lacks the required argument{"s" if len(missing) > 1 else ""} {", ".join(missing)}')


@rule("terraform.unknown-resource-type", "warning", "a resource type one letter or two away from a common alicloud/aws type", kind="terraform")
def unknown_resource_type(t: ModuleTarget) -> Iterator[Diagnostic]:
    """A likely misspelling of a type in `RESOURCE_TYPES` (a warning: providers add types)."""
    for d in _resources(t):
        rtype = d.block.labels[0]
        if rtype not in RESOURCE_TYPES and rtype.startswith(("alicloud_", "aws_")):
            close = [x for x in difflib.get_close_matches(rtype, RESOURCE_TYPES, n=3, cutoff=0.85) if _typo_distance(rtype, x) <= 2]
            if close:
                yield diag(unknown_resource_type, d.file, d.block.line, d.block.column, f'"{rtype}" looks like a misspelling of the resource type "{close[0]}"')


@rule("terraform.resource-unknown-argument", "warning", "an argument of a VPC/subnet/security group resource that looks misspelt",
      kind="terraform")
def resource_unknown_argument(t: ModuleTarget) -> Iterator[Diagnostic]:
    """An argument close to one of the type's arguments in `KNOWN` (a warning: providers add
    arguments)."""
    for d in _resources(t):
        known = KNOWN_SETS.get(d.block.labels[0])
        for a in d.block.attrs if known else ():
            if a.name in known or a.name in META:
                continue
            close = difflib.get_close_matches(a.name, known, n=1, cutoff=0.8)
            if close:
                yield diag(resource_unknown_argument, d.file, a.line, a.column, f'{d.block.labels[0]} has no argument "{a.name}" (did you mean "{close[0]}"?)')
