variable "zones" {
  default = [
    "cn-hangzhou-h",
    "cn-hangzhou-i" # expect: hcl.syntax

}
