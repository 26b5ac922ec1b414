"""Namespace as an authorization scope: authentication, impersonation, RBAC (see docs/scope.md).

Self-contained: nothing here imports the http layer; `kinds` uses the registry's declarations only.
"""
from .authn import (ADMIN_USER, TokenAuthenticator, TokenFileError, identify, impersonate, parse_token_file,
                    split_sa_username)
from .rbac import (BOOTSTRAP_POLICY, Attributes, Authorizer, LayeredRbacSource, RBACAuthorizer, RbacSource,
                   StaticRbacSource, UserInfo, forbidden_error, forbidden_message, request_attributes,
                   rule_allows)

__all__ = ["ADMIN_USER", "Attributes", "Authorizer", "BOOTSTRAP_POLICY", "LayeredRbacSource", "RBACAuthorizer",
           "RbacSource", "StaticRbacSource", "TokenAuthenticator", "TokenFileError", "UserInfo", "forbidden_error",
           "forbidden_message", "identify", "impersonate", "parse_token_file", "request_attributes", "rule_allows",
           "split_sa_username"]
