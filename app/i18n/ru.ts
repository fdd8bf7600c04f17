/**
 * Every text the product shows, in Russian: the UI and the API's error messages read from here, so wording
 * changes in one place.
 */
export const ru = {
  app: {
    name: "Медиатека",
    rootGroupName: "Доступные Файлы",
  },
  errors: {
    title: "Ошибка",
    unknown: "Неизвестная ошибка",
    server: "Ошибка на сервере",
    serialize: "Не удалось сериализовать ошибку",
    http: (code: number, message: string) => `HTTP ${code}: ${message}`,
    noServiceWorker: "No service worker registration",
    invalidField: (field: string, message: string) => `Поле «${field}»: ${message}`,
    invalidInput: (message: string) => `Некорректный запрос: ${message}`,
    malformedJson: "Тело запроса не является корректным JSON",
    unsupportedMediaType: "Неподдерживаемый тип содержимого запроса",
    routeNotFound: (method: string, path: string) => `Маршрут ${method} ${path} не найден`,
    notFound: "Не найдено",
    badCredentials: "Неверный логин или пароль",
    tooManyAttempts: (seconds: number) => `Слишком много неудачных попыток входа. Повторите через ${seconds} с.`,
    unauthenticated: "Требуется вход в систему",
    invalidToken: "Недействительный или просроченный токен",
    refreshMissing: "Нет токена обновления сессии",
    refreshInvalid: "Сессия недействительна, войдите снова",
    refreshReused: "Токен обновления уже использован: все сессии этого входа завершены",
    exchangeInvalid: "Одноразовый токен недействителен или уже использован",
    forbidden: "Недостаточно прав",
    crossOrigin: "Запрос с чужого источника отклонён",
    metricsToken: "Нужен токен доступа к метрикам",
    unknownServer: "Неизвестный сервер загрузки",
    unhealthy: "Сервис недоступен",
  },
} as const;

export type Dictionary = typeof ru;
