<?php

declare(strict_types=1);

namespace IikoCloud\Exception;

/**
 * HTTP 5xx: the service failed. Safe calls were already retried.
 */
class ServerException extends ApiException
{
}
