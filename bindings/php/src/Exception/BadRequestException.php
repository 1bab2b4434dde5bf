<?php

declare(strict_types=1);

namespace IikoCloud\Exception;

/**
 * HTTP 400: the service rejected the request; see getErrorDescription().
 */
class BadRequestException extends ApiException
{
}
