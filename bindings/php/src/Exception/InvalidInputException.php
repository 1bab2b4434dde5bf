<?php

declare(strict_types=1);

namespace IikoCloud\Exception;

/**
 * A bad argument or configuration, refused before anything was sent (status
 * 71xx: e.g. no credentials, a bad base URL, an id that is not a UUID, a
 * request field the endpoint does not know).
 */
class InvalidInputException extends IikoException
{
}
