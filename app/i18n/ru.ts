/**
 * Every text the product shows, in Russian: the UI and the API's error messages read from here, so wording
 * changes in one place.
 */
export const ru = {
  app: {
    name: "Медиатека",
    tagline: "Управление медиаактивами",
    rootGroupName: "Доступные Файлы",
  },
  /** API messages of the group calls (workers/services/group.service.ts). */
  groups: {
    notFound: "Папка не найдена",
  },
  /** API messages of the asset calls (workers/services/asset.service.ts). */
  assets: {
    notFound: "Файл не найден",
  },
  /** API messages of tags, storages, classes and previews. */
  catalog: {
    tagNotFound: "Тег не найден",
    storageNotFound: "Хранилище не найдено",
    tagExists: (name: string) => `Тег «${name}» уже существует`,
    entityNotFound: "Объект не найден",
    adminOnly: "Это действие доступно только администраторам",
    nameControlChars: "имя не может содержать управляющие символы",
    storageExists: (name: string) => `Хранилище «${name}» уже существует`,
    defaultStorageLocked: "Встроенное хранилище R2 можно только переименовать: его тип, адрес и ключи не меняются",
    storageUnavailable: "Внешнее хранилище недоступно, повторите попытку позже",
    storageCredsUnreadable: "Ключи доступа хранилища не удаётся расшифровать: задайте их заново",
    rangeNotSatisfiable: "Запрошенный диапазон выходит за пределы файла",
    urlScheme: "ожидается адрес http:// или https:// без логина, пароля, параметров и якоря",
    bucketName: "ожидается имя бакета: 2–63 латинские буквы, цифры, «.», «-» или «_»",
    regionName: "ожидается регион, например eu-central-1 или auto",
    nothingToChange: "нужно передать хотя бы одно поле для изменения",
    classNotFound: "Класс файлов не найден",
    classExists: (name: string) => `Класс файлов «${name}» уже существует`,
    classInUse: (assets: number, groups: number) =>
      `Класс используется: ${assets} ${plural(assets, "файл", "файла", "файлов")} и ${groups} ${plural(groups, "папка", "папки", "папок")}. Сначала смените им класс`,
    previewNotFound: "Превью не найдено",
    previewVersionNotFound: (version: number) => `Версия ${version} не найдена`,
    previewType: "Превью должно быть изображением JPEG, PNG, WebP или GIF",
    previewTooLarge: (mib: number) => `Превью больше ${mib} МиБ`,
    previewEmpty: "Пустое тело запроса: пришлите байты изображения",
    previewCorrupt: (mime: string) => `Содержимое не похоже на изображение ${mime}`,
  },
  login: {
    title: "Вход в Медиатеку",
    subtitle: "Войдите, чтобы работать с файлами вашей организации",
    user: "Логин",
    password: "Пароль",
    submit: "Войти",
    submitting: "Вход…",
    sso: (name: string) => `Войти через ${name}`,
    ssoDivider: "или",
    tokenSignIn: "Выполняется вход по ссылке…",
  },
  nav: {
    files: "Файлы",
    search: "Поиск",
    jobs: "Задачи",
    automations: "Автоматизации",
    shop: "Магазин",
    admin: "Администрирование",
    logout: "Выйти",
    mainMenu: "Главное меню",
    apiDocs: "Справочник API",
  },
  mam: {
    title: "Доступные Файлы",
    groupsCount: (n: number) => `${n} ${plural(n, "папка", "папки", "папок")}`,
    empty: "Здесь пока пусто",
    emptyHint: "Папки, к которым у вас есть доступ, появятся здесь.",
    columns: { name: "Название", owner: "Владелец", members: "Элементов", modified: "Изменено" },
    loadMore: "Показать ещё",
    group: "Папка",
    viewer: "Просмотр файла",
    asset: "Файл",
  },
  screens: {
    pending: "Этот раздел появится в одном из следующих обновлений.",
    admin: "Администрирование",
    adminHint: "Пользователи, группы, права доступа и метаданные.",
    activeUsers: "Активные пользователи",
    inactiveUsers: "Неактивные пользователи",
    activeUsersHint: "Учётные записи и роботы, которые могут входить в систему",
    inactiveUsersHint: "Отключённые учётные записи и их файлы",
    userGroupsHint: "Группы пользователей и их права на папки",
    metadataHint: "Поля, классы файлов, таксономии и списки",
    userGroups: "Группы пользователей",
    groupUsers: "Пользователи группы",
    groupAssets: "Файлы группы",
    userGroupsTab: "Группы пользователя",
    userAssets: "Файлы пользователя",
    metadata: "Метаданные",
    metadataTemplate: "Шаблон метаданных",
    jobs: "Задачи",
    job: "Журнал задачи",
    automations: "Автоматизации",
    automation: "Автоматизация",
    search: "Поиск",
    shop: "Магазин",
    sharedLink: "Общая ссылка",
    editor: "Редактор документов",
    notFound: "Страница не найдена",
    notFoundHint: "Проверьте адрес или вернитесь к файлам.",
    backToFiles: "К файлам",
    crashed: "Что-то пошло не так",
  },
  newVersion: {
    title: "Доступна новая версия",
    body: "Медиатека обновилась. Перезагрузите страницу, чтобы работать с новой версией.",
    reload: "Обновить",
    later: "Позже",
  },
  common: {
    close: "Закрыть",
    dash: "—",
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
    requiredField: "обязательное поле",
    wrongType: (expected: string) => `ожидается ${expected}`,
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

/** Russian plural form for a count: one (1, 21), few (2–4, 22–24), many (5–20, 25–30…). */
export function plural(n: number, one: string, few: string, many: string): string {
  const mod10 = n % 10;
  const mod100 = n % 100;
  if (mod10 === 1 && mod100 !== 11) return one;
  if (mod10 >= 2 && mod10 <= 4 && (mod100 < 12 || mod100 > 14)) return few;
  return many;
}
