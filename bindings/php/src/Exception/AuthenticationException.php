<?php

declare(strict_types=1);

namespace IikoCloud\Exception;

/**
 * HTTP 401: the credentials were refused (also after one token refresh).
 */
class AuthenticationException extends ApiException
{
}
