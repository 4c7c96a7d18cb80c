# mistake: puts pydantic's whole multi-line error text into the ProtocolError
# expect: Regex pattern did not match
try:
    return EVENT.validate_python(data)
except ValidationError as error:
    raise ProtocolError(f"{where}: {error}") from None
