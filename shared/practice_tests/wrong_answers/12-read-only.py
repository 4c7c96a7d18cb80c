# mistake: hands the handler a read-only view of the live arguments, not a copy
# expect: {'all': False}
return MappingProxyType(arguments)
