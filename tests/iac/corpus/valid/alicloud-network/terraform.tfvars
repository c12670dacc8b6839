environment = "staging"
vswitches = {
  app-a = {
    zone_id    = "cn-hangzhou-h"
    cidr_block = "10.10.1.0/24"
  }
  app-b = {
    zone_id    = "cn-hangzhou-i"
    cidr_block = "10.10.2.0/24"
  }
  app-c = {
    zone_id    = "cn-hangzhou-j"
    cidr_block = "10.10.3.0/24"
  }
}
