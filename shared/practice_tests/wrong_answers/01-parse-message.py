# mistake: lets pydantic's ValidationError escape instead of a one-line ProtocolError
# expect: ValidationError
if not isinstance(data, dict) or not isinstance(data.get("role"), str):
    raise ProtocolError(f"{where}: expected an object with a string `role`")
return TYPED_ROLES.get(data["role"], AppMessage).model_validate(data)
