"""Alibaba Cloud ROS templates (`ROSTemplateFormatVersion`), checked offline."""
