output "vpc_id" {
  value = module.vpc.vpc_id
}

output "web_ips" {
  value     = aws_instance.web[*].private_ip
  sensitive = false
}

output "log_buckets" {
  value = { for k, b in aws_s3_bucket.logs : k => b.bucket }
}

output "banner" {
  value = <<-EOT
    Environment ${var.environment} in ${var.region}
    %{for az in var.azs}zone ${az}
    %{endfor}
  EOT
}
