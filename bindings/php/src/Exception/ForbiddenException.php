<?php

declare(strict_types=1);

namespace IikoCloud\Exception;

/**
 * HTTP 403: the API key may not use this endpoint or organization.
 */
class ForbiddenException extends ApiException
{
}
